// What a source holds against its cursor, decided in one place for the quiet
// pass (which lands nothing and writes nothing) and for the pass under the
// session's lock (which lands, or stops the source): both must agree on
// when a source is unchanged, empty, replaced, truncated or in conflict.

import fs from 'node:fs';
import type { CollectableSource } from '../adapters/adapter.ts';
import { digestOf } from '../files/digest.ts';
import { isJsonText } from '../files/json-text.ts';
import { readRange, withOpenFile } from '../files/line-reader.ts';
import type { AppendCursor, Cursor, SnapshotCursor } from '../landing/cursor.ts';

// Bytes after the last newline are a line still being written, and are left
// for the next pass, except in a file nobody writes any more: a finished
// transcript another tool copied or cut without its final newline. Such a
// last line lands once the file has not changed for this long and the bytes
// are one whole JSON value, so a record is never lost for want of a newline
// and a half-written one is never landed. A tail that is not whole JSON is
// left out and said so in every pass's outcome.
export const QUIET_TAIL_MS = 10 * 60 * 1000;

export const EMPTY_DOCUMENT = 'the document is empty; nothing to land yet';

export type SourceVerdict =
  /** An earlier conflict stopped the source; it stays stopped until a person moves its cursor aside. */
  | { readonly kind: 'stopped'; readonly cursor: Cursor }
  /** The source can no longer be read on from its cursor: it is stopped now, for this reason. */
  | { readonly kind: 'conflict'; readonly cursor: Cursor; readonly why: string }
  /** Nothing in it yet, and no cursor. */
  | { readonly kind: 'empty'; readonly message?: string }
  /** All of it is landed. */
  | { readonly kind: 'unchanged'; readonly cursor: Cursor }
  /** An append source with bytes past its cursor (or a first cursor to make): `stat` is the one decided on. */
  | { readonly kind: 'grown'; readonly cursor: AppendCursor | undefined; readonly stat: fs.BigIntStats }
  /** A snapshot source whose content is not the one landed last. */
  | { readonly kind: 'changed'; readonly cursor: SnapshotCursor | undefined; readonly content: Buffer; readonly digest: string };

/** Reads the source as far as deciding needs: its size and identity for an append source, its content for a snapshot. Throws what reading throws. */
export function verdictOf(source: CollectableSource, cursor: Cursor | undefined): SourceVerdict {
  if (cursor?.state === 'conflict') return { kind: 'stopped', cursor };
  if (cursor && cursor.type !== source.nature) return { kind: 'conflict', cursor, why: `the cursor is for a ${cursor.type} source but this source is ${source.nature}` };
  if (source.nature === 'append') {
    const stat = fs.statSync(source.path, { bigint: true });
    const appended = cursor as AppendCursor | undefined;
    if (!appended) return stat.size === 0n ? { kind: 'empty' } : { kind: 'grown', cursor: undefined, stat };
    const device = String(stat.dev);
    const inode = String(stat.ino);
    if (appended.device !== device || appended.inode !== inode) {
      return { kind: 'conflict', cursor: appended, why: `the file was replaced: device and inode were ${appended.device}/${appended.inode}, now ${device}/${inode}` };
    }
    const size = Number(stat.size);
    if (size < appended.offset) return { kind: 'conflict', cursor: appended, why: `the file was truncated: ${appended.offset} bytes were landed, the file now has ${size}` };
    return size === appended.offset ? { kind: 'unchanged', cursor: appended } : { kind: 'grown', cursor: appended, stat };
  }
  const content = fs.readFileSync(source.path);
  if (content.length === 0) return { kind: 'empty', message: EMPTY_DOCUMENT };
  const digest = digestOf(content);
  const snapshot = cursor as SnapshotCursor | undefined;
  return snapshot && snapshot.contentSha256 === digest ? { kind: 'unchanged', cursor: snapshot } : { kind: 'changed', cursor: snapshot, content, digest };
}

/** The bytes [start, end) of `file`: what follows the last landed line, read once for every question asked of it. */
export function tailOf(file: string, start: number, end: number): Buffer {
  const bytes = Buffer.alloc(end - start);
  withOpenFile(file, (descriptor) => {
    let at = 0;
    for (const chunk of readRange(descriptor, start, end, 'the source ended early')) {
      chunk.copy(bytes, at);
      at += chunk.length;
    }
  });
  return bytes;
}

export function inFlightMessage(bytes: number, quiet: boolean): string {
  return quiet
    ? `${bytes} bytes after the last newline are not a whole record, and the file has not changed for ${QUIET_TAIL_MS / 60000} minutes; they are left out until a newline ends them`
    : `${bytes} bytes after the last newline are a write in progress; left for the next pass`;
}

/** Whether a file last changed at `mtimeMs` has been quiet long enough for its unfinished last line to land. */
export function isQuiet(mtimeMs: number, now: Date): boolean {
  return now.getTime() - mtimeMs >= QUIET_TAIL_MS;
}

/** The bytes after the last newline, when they are one whole JSON value: a finished last line that lacks only its newline. */
export function finishedLine(tail: Buffer): Buffer | undefined {
  return isJsonText(tail) ? tail : undefined;
}
