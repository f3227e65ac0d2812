// The quiet pass: a session with nothing new, answered without its lock and
// without writing anything.

import { readCursor, type Cursor } from '../landing/cursor.ts';
import { BUFFER_BYTES } from '../files/buffer-pool.ts';
import { isLeftByEndedProcess } from '../files/process.ts';
import { SessionFolder } from '../landing/session-folder.ts';
import { landedFilesWithoutSessionData } from '../session-data/derive.ts';
import type { CollectableSource, DiscoveredSession } from '../adapters/adapter.ts';
import { outcome, stoppedEarlier, type CollectOptions, type SessionOutcome, type SourceOutcome } from './outcome.ts';
import { finishedLine, inFlightMessage, isQuiet, tailOf, verdictOf } from './source-verdict.ts';
import { vanishedCursor } from './vanished-sources.ts';

/**
 * The outcome of a session with nothing to land, nothing to mend (a `.sd`
 * missing, a state damaged) and no cursor to change, found without its lock
 * and without writing anything; undefined when the pass has work there,
 * which it does under the lock.
 *
 * Locking every session (a lock file made and removed) and writing its
 * state again with the pass's time, which nothing reads, would make each
 * pass of a watching collector (every five seconds by default) cost as much
 * as the history is large, when it finds nothing new. So a pass
 * (collect-all.ts) asks this of each session before it lands any, and lands
 * only those without an answer.
 *
 * Reading without the lock is safe because nothing here is acted on: a
 * collector in the middle of landing the session leaves a landed file
 * without its `.sd`, or a cursor behind its source, and either sends this
 * pass to the lock like any other work.
 */
export function quietSession(session: DiscoveredSession, options: CollectOptions): SessionOutcome | undefined {
  try {
    // Held by another collector: the pass under the lock says so.
    const folder = new SessionFolder(options.data, session.id);
    if (folder.isLocked()) return undefined;
    // Temporary files that a dead process left are work: the pass removes them under the lock.
    if ([...folder.listing.folders.values()].some((names) => [...names].some(isLeftByEndedProcess))) return undefined;
    if (options.deriveSessionData !== false && landedFilesWithoutSessionData(options.data, session.id, folder.listing).length > 0) return undefined;
    if (!folder.stateIsSound()) return undefined;
    const sources: SourceOutcome[] = [];
    const visited = new Set<string>();
    for (const source of session.sources) {
      const cursorFile = folder.cursorFile(source.place, source.cursorKey);
      if (visited.has(cursorFile)) return undefined;
      visited.add(cursorFile);
      const quiet = quietOutcome(source, cursorFile, readCursor(cursorFile), options.now?.() ?? new Date());
      if (!quiet) return undefined;
      sources.push(quiet);
    }
    for (const { file } of folder.cursorsBesides(visited)) if (vanishedCursor(file, options.sourceRoot)) return undefined;
    return { session: session.id, sources, mended: 0, unreadable: [] };
  } catch {
    // Whatever failed, the pass under the lock meets it again and reports it.
    return undefined;
  }
}

/**
 * A source's outcome when collecting it writes nothing: a cursor that says
 * all of it is landed, or that an earlier conflict stopped it, or no cursor
 * and nothing in it yet, or only a line still being written past it.
 * Undefined when there is something to land or a cursor to change. Throws
 * what reading the source throws.
 */
function quietOutcome(source: CollectableSource, cursorFile: string, cursor: Cursor | undefined, now: Date): SourceOutcome | undefined {
  const verdict = verdictOf(source, cursor);
  switch (verdict.kind) {
    case 'stopped':
      return stoppedEarlier(source, cursorFile, verdict.cursor);
    case 'empty':
      return outcome(source, 'empty', verdict.message);
    case 'unchanged':
      // A cursor that is not active is made active again under the lock.
      return verdict.cursor.state === 'active' ? outcome(source, 'unchanged') : undefined;
    case 'grown': {
      if (!verdict.cursor || verdict.cursor.state !== 'active') return undefined;
      const { offset } = verdict.cursor;
      const size = Number(verdict.stat.size);
      const inFlight = size - offset;
      // Bytes after the last landed line with no newline among them are a
      // line still being written: nothing to land yet, as the pass under the
      // lock would find after checking the landed prefix again.
      if (inFlight > BUFFER_BYTES) return undefined;
      const tail = tailOf(source.path, offset, size);
      if (tail.includes(0x0a)) return undefined;
      const quiet = isQuiet(Number(verdict.stat.mtimeMs), now);
      if (quiet && finishedLine(tail) !== undefined) return undefined;
      return { ...outcome(source, 'unchanged', inFlightMessage(inFlight, quiet)), inFlightBytes: inFlight };
    }
    case 'conflict':
    case 'changed':
      return undefined;
  }
}
