// Sources that no longer exist, and sessions whose sources are all gone.

import fs from 'node:fs';
import path from 'node:path';
import { readCursor, writeCursor, type Cursor } from '../landing/cursor.ts';
import type { DiscoveredSession } from '../adapters/adapter.ts';
import { emptyOutcome, type SessionContext, type SourceOutcome } from './outcome.ts';

/**
 * Marks the cursors of sources that no longer exist as source_gone. Pruned
 * sources are normal (Claude Code deletes old transcripts while their child
 * streams survive), so this is a state, not an error, and the landed data
 * stays: the storage zone outlives its sources.
 */
export function markVanishedSources(context: SessionContext, unvisited: Iterable<{ file: string; place: string }>): SourceOutcome[] {
  const outcomes: SourceOutcome[] = [];
  // `unvisited`: the cursors listed as the session was taken up that no
  // source of this pass has (SessionFolder.cursorsBesides); one a source
  // makes in this pass is its own.
  for (const { file, place } of unvisited) {
    const cursor = vanishedCursor(file, context.sourceRoot);
    if (!cursor) continue;
    writeCursor(file, { ...cursor, state: 'source_gone' }, context.now());
    outcomes.push(emptyOutcome(cursor.source, place, 'gone', 'the source no longer exists; what was landed from it stays'));
  }
  return outcomes;
}

/** The cursor at `file` when the source it names no longer exists and the cursor does not say so yet. */
export function vanishedCursor(file: string, sourceRoot: string): Cursor | undefined {
  const cursor = readCursor(file);
  if (!cursor || cursor.state !== 'active') return undefined;
  return fs.existsSync(path.join(sourceRoot, cursor.source)) ? undefined : cursor;
}

/** A session found in the storage zone but no longer among the sources: collecting it records that its sources are gone. */
export function vanishedSession(session: string): DiscoveredSession {
  return { id: session, folders: [], sources: [] };
}
