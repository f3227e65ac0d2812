// What the last export into a folder left there, as its folders' stamps: so
// that the next export can tell that nothing was added to the folder since,
// which it must know before it replaces the folder whole (destination.ts),
// without listing every folder of it and reading its manifest.
//
// A folder's change time moves with every entry made, removed or renamed in
// it, and no one can set it back (files/file-stamp.ts). So a folder whose
// stamp is the one recorded holds what it held then. A folder the export
// changed just before its stamp was taken is recorded without one, with
// the names it held: a change in the same tick of the clock would not move
// its change time. So is a folder on a file system that keeps times to the
// millisecond or coarser (FAT, exFAT, HFS+ keep seconds), where a change
// could fall in the same second as the one recorded. The record is derived and disposable, beside the record
// of reused files; without it, or with any folder changed, the export folder
// is checked against its manifest as before.

import fs from 'node:fs';
import path from 'node:path';
import { replaceWithoutFlush } from '../files/atomic-file.ts';
import { compareStamps, folderStampOf, stampFromText, stampText } from '../files/file-stamp.ts';
import { exportRecordOf } from '../bundle/reuse.ts';

const SCHEMA = 'export-folders/1';

/**
 * How long before the export was swapped into place a folder must have last
 * changed for its stamp to be trusted: more than a tick of the clock that
 * change times are taken from, which runs behind the one Date.now reads.
 */
const SETTLED_BEFORE_NANOSECONDS = 50_000_000n;

/**
 * Whether a folder's stamp, whose change time is `changed`, can tell a later
 * change from the export's own (recordFolders): it changed well before the
 * swap, on a file system that keeps times finer than a millisecond.
 */
export function stampTrusted(changed: bigint, swapped: bigint): boolean {
  return changed < swapped - SETTLED_BEFORE_NANOSECONDS && changed % 1_000_000n !== 0n;
}

/** A folder as recorded, by its path inside the export ('' for the export folder): its stamp (stampText), or, when it had changed too lately to have one, the names it held. */
type Recorded = Record<string, string | readonly string[]>;

/**
 * Records the folders of the export just swapped into place at `out`, whose
 * files are `files` (every file it holds, by path inside it), at `swapped`
 * (Date.now, in nanoseconds, as it was before the swap). A folder whose
 * stamp could hold a change made since is recorded by its names, and only
 * if they are those the export wrote; else nothing is recorded.
 */
export function recordFolders(data: string, out: string, files: readonly string[], swapped: bigint): void {
  const children = new Map<string, Set<string>>([['', new Set()]]);
  for (const file of files) {
    // Up from the file, until a folder already names the entry below it: the folders above it are known too.
    for (let entry = file; entry !== '.'; ) {
      const parent = path.posix.dirname(entry);
      const name = path.posix.basename(entry);
      const folder = parent === '.' ? '' : parent;
      const known = children.get(folder);
      if (known?.has(name)) break;
      if (known === undefined) children.set(folder, new Set([name]));
      else known.add(name);
      entry = parent;
    }
  }
  const record = recordOf(data, out);
  fs.rmSync(record, { force: true });
  const recorded: Recorded = {};
  for (const [folder, expected] of [...children].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const stamp = folderStampOf(path.join(out, folder));
    if (stamp === undefined) return;
    if (stampTrusted(BigInt(stamp.changed), swapped)) {
      recorded[folder] = stampText(stamp);
      continue;
    }
    const names = fs.readdirSync(path.join(out, folder)).sort();
    if (names.length !== expected.size || names.some((name) => !expected.has(name))) return;
    recorded[folder] = names;
  }
  fs.mkdirSync(path.dirname(record), { recursive: true });
  replaceWithoutFlush(record, `${JSON.stringify({ schema: SCHEMA, out: path.resolve(out), folders: recorded })}\n`);
}

/** Whether `out` holds just what the last export into it recorded (recordFolders): false when it cannot tell. */
export function unchangedSinceRecorded(data: string, out: string): boolean {
  let recorded: Recorded;
  try {
    const parsed = JSON.parse(fs.readFileSync(recordOf(data, out), 'utf8')) as { schema?: unknown; out?: unknown; folders?: Recorded };
    if (parsed.schema !== SCHEMA || parsed.out !== path.resolve(out) || typeof parsed.folders !== 'object' || parsed.folders === null) return false;
    recorded = parsed.folders;
  } catch {
    return false;
  }
  if (!('' in recorded)) return false;
  for (const [folder, what] of Object.entries(recorded)) {
    const where = path.join(out, folder);
    if (typeof what === 'string') {
      if (compareStamps(folderStampOf(where), stampFromText(what)) !== 'same') return false;
      continue;
    }
    let names: string[];
    try {
      names = fs.readdirSync(where).sort();
    } catch {
      return false;
    }
    if (!Array.isArray(what) || names.length !== what.length || names.some((name, index) => name !== what[index])) return false;
  }
  return true;
}

function recordOf(data: string, out: string): string {
  return exportRecordOf(data, out, 'folders.json');
}
