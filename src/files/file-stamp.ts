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
 * of the file's metadata, its count of hard links included. So a stamp is
 * taken once the links to the file are as they stay. Times are in
 * nanoseconds, as decimal text.
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

/**
 * The stamp of a file by what `stat` with bigint times says of it, or by the
 * same fields as they come from another thread (folder-remover.ts), which
 * keeps none of its methods; undefined for anything but a regular file.
 */
export function stampOfStats(stat: Pick<fs.BigIntStats, 'dev' | 'ino' | 'size' | 'mode' | 'mtimeNs' | 'ctimeNs'>): FileStamp | undefined {
  return (stat.mode & BigInt(fs.constants.S_IFMT)) === BigInt(fs.constants.S_IFREG) ? { device: `${stat.dev}`, inode: `${stat.ino}`, size: `${stat.size}`, modified: `${stat.mtimeNs}`, changed: `${stat.ctimeNs}` } : undefined;
}

/**
 * A record of files' stamps taken only once the links to them are as they
 * stay: after the earlier export, which shares their inodes, is removed
 * (export/export-folder.ts). `files` are those it records; `save` records
 * them, given each one's stamp as it then is, by file.
 */
export interface StampsRecord {
  readonly files: readonly string[];
  save(stamps: ReadonlyMap<string, FileStamp | undefined>): void;
}

/** Each file's stamp as it is now, by file. */
export function stampsNow(files: readonly string[]): Map<string, FileStamp | undefined> {
  return new Map(files.map((file) => [file, stampOf(file)]));
}

/**
 * How a file's stamp now compares with one taken before: the same; the same
 * but for the change time, which a hard link made or removed since gives,
 * and so does a write whose modification time was set back, which only the
 * bytes can tell apart; or another file, or other bytes.
 */
export function compareStamps(now: FileStamp | undefined, before: FileStamp | undefined): 'same' | 'change time only' | 'different' {
  if (now === undefined || before === undefined) return 'different';
  if (now.device !== before.device || now.inode !== before.inode || now.size !== before.size || now.modified !== before.modified) return 'different';
  return now.changed === before.changed ? 'same' : 'change time only';
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
