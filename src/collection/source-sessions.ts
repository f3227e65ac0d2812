// Which stored sessions came from which source folder.
//
// A data folder can hold sessions of several sources (the sample corpus, then
// a real history, say), and an export is of one source: the sessions under
// the source it was given. Discovery alone cannot say which those are, since
// Claude Code deletes old transcripts and the storage zone keeps what was
// landed from them. So every collection pass records, per source folder, every
// session it discovered there, and the record only grows. It is derived and
// disposable, kept under `_sources/` in the data folder, outside every export:
// a missing one means only the sessions discovered now count as the source's.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { replaceFile } from '../files/atomic-file.ts';

const SCHEMA = 'source-sessions/1';

function recordOf(data: string, root: string): string {
  return path.join(data, '_sources', `${crypto.createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 32)}.json`);
}

/** Every session ever discovered under the source folder `root` by a pass into `data`. */
export function sessionsOfSource(data: string, root: string): Set<string> {
  try {
    const parsed = JSON.parse(fs.readFileSync(recordOf(data, root), 'utf8')) as { schema?: string; root?: string; sessions?: unknown };
    if (parsed.schema === SCHEMA && parsed.root === path.resolve(root) && Array.isArray(parsed.sessions)) return new Set(parsed.sessions.filter((id): id is string => typeof id === 'string'));
  } catch {
    // No record yet, or a damaged one: it is made again from what is discovered.
  }
  return new Set();
}

/** Adds the sessions just discovered under `root` to its record; writes nothing when it holds them all. */
export function rememberSessionsOfSource(data: string, root: string, discovered: Iterable<string>): void {
  const known = sessionsOfSource(data, root);
  const before = known.size;
  for (const id of discovered) known.add(id);
  if (known.size === before) return;
  const record = recordOf(data, root);
  fs.mkdirSync(path.dirname(record), { recursive: true });
  replaceFile(record, `${JSON.stringify({ schema: SCHEMA, root: path.resolve(root), sessions: [...known].sort() })}\n`);
}
