// A file's stamp: what names its bytes as they were when it was stamped,
// without reading them, for the caches and records that trust a file they
// wrote earlier (the export's reused files, the site's kept pages, the
// archive's reused frames).

import fs from 'node:fs';

/**
 * What changes when a file is replaced or written: its device, inode, size
 * and modification time, which together name the file's bytes as they were
 * stamped, and its change time. The change time is there because the
 * modification time can be set back by anyone who can write the file, and
 * the change time cannot: it moves with every write, and with every change
 * of the file's metadata, its count of hard links included (a record of
 * stamps allows for that: StampsRecord). Times are in nanoseconds, as
 * decimal text.
 */
export interface FileStamp {
  readonly device: string;
  readonly inode: string;
  readonly size: string;
  readonly modified: string;
  readonly changed: string;
}

export function stampOf(file: string): FileStamp | undefined {
  try {
    return stampOfStats(fs.statSync(file, { bigint: true }));
  } catch {
    return undefined;
  }
}

/** The stamp of the file open at `descriptor`: that of the file read, whatever its name now names. */
export function stampOfOpen(descriptor: number): FileStamp | undefined {
  try {
    return stampOfStats(fs.fstatSync(descriptor, { bigint: true }));
  } catch {
    return undefined;
  }
}

/** The stamp of a folder, by the same fields as a file's: its change time moves with every entry made, removed or renamed in it. Undefined for anything but a folder. */
export function folderStampOf(folder: string): FileStamp | undefined {
  try {
    const stat = fs.statSync(folder, { bigint: true });
    return stat.isDirectory() ? fieldsOf(stat) : undefined;
  } catch {
    return undefined;
  }
}

/** The stamp of a file by what `stat` with bigint times says of it; undefined for anything but a regular file. */
function stampOfStats(stat: fs.BigIntStats): FileStamp | undefined {
  return stat.isFile() ? fieldsOf(stat) : undefined;
}

function fieldsOf(stat: fs.BigIntStats): FileStamp {
  return { device: `${stat.dev}`, inode: `${stat.ino}`, size: `${stat.size}`, modified: `${stat.mtimeNs}`, changed: `${stat.ctimeNs}` };
}

/**
 * A record of the stamps of files an export placed, saved as the export is
 * swapped into place, with each file's stamp as it was checked or placed.
 * Removing the earlier export, whose hard links share many of those files,
 * then moves their change times. Rather than stamp every file again once it
 * is gone, a marker is written beside the record (`marker`): its own change
 * time, later than every change the removal made, is the record's settled
 * time. A file whose change time alone differs from its recorded stamp, and
 * is no later than that, changed only by the export and the removal
 * (compareStamps). A record without its marker, as when the process ended
 * before the removal did, is held to its stamps exactly.
 */
export interface StampsRecord {
  /** Where the record's marker goes: removed before the record is saved, written once the earlier export is gone. */
  readonly marker: string;
  save(): void;
}

/** The marker of the record saved at `record` (StampsRecord). */
export function settledMarkerOf(record: string): string {
  return `${record}.settled`;
}

/** The settled time of a record, from its marker (StampsRecord); undefined when it has none. */
export function settledTime(marker: string): bigint | undefined {
  try {
    return fs.statSync(marker, { bigint: true }).ctimeNs;
  } catch {
    return undefined;
  }
}

/**
 * How a file's stamp now compares with one taken before: the same; the same
 * but for the change time, which a hard link made or removed since gives,
 * and so does a write whose modification time was set back, which only the
 * bytes can tell apart; or another file, or other bytes. Given the settled
 * time of the record that holds `before` (StampsRecord), a change time moved
 * on to no later than that is the same file.
 */
export function compareStamps(now: FileStamp | undefined, before: FileStamp | undefined, settled?: bigint): 'same' | 'change time only' | 'different' {
  if (now === undefined || before === undefined) return 'different';
  if (now.device !== before.device || now.inode !== before.inode || now.size !== before.size || now.modified !== before.modified) return 'different';
  if (now.changed === before.changed) return 'same';
  const changed = BigInt(now.changed);
  return settled !== undefined && BigInt(before.changed) <= changed && changed <= settled ? 'same' : 'change time only';
}

/** A stamp as the records on disk hold it: `device:inode:size:modified:changed`. */
export function stampText(stamp: FileStamp): string {
  return `${stamp.device}:${stamp.inode}:${stamp.size}:${stamp.modified}:${stamp.changed}`;
}

const STAMP_TEXT = /^\d+:\d+:\d+:\d+:\d+$/;

/** The stamp a record holds as text (stampText); undefined for text that is none. */
export function stampFromText(text: string): FileStamp | undefined {
  // One test of the whole text: records hold a stamp for each of thousands of files.
  if (!STAMP_TEXT.test(text)) return undefined;
  const [device, inode, size, modified, changed] = text.split(':') as [string, string, string, string, string];
  return { device, inode, size, modified, changed };
}
