// A cursor remembers how much of one source has been landed, and enough about
// the source to notice when it stopped being the file we were reading.
//
// Two kinds, because sources come in two natures (seed design-notes/01 §2.5):
//
// append    a file that only grows (transcripts, journals). Each field catches
//           a different failure:
//             device + inode   the file was replaced under the same path (rotation)
//             offset vs size   truncation, and whether anything is new, without mtime
//             prefix_sha256    any rewrite of the bytes already landed
//             last_record      a cheap semantic anchor, for diagnosis only
//           offset is what was CONSUMED, up to the last newline, never what
//           was scanned: bytes after the last newline are a write in progress.
// snapshot  a whole document that is rewritten (workflow manifests, agent
//           sidecars, scripts). A new version lands whenever its digest changes,
//           which turns a mutable source into an immutable version history.
//
// The prefix digest covers all of [0, offset), not a window: Node cannot save
// and resume a hash, so the prefix is re-read when a file grows, but only then.
// An unchanged file costs one stat; a file that grew is read again from its
// start, which is fast beside landing what was added.

import { replaceFile } from '../files/atomic-file.ts';
import { formatState, readState, wholeNumber } from './state-text.ts';

export const CURSOR_SCHEMA = 1;

export type CursorState = 'active' | 'source_gone' | 'conflict';

interface CursorCommon {
  /** The source's path under the source root. */
  readonly source: string;
  readonly lastSeq: number;
  readonly state: CursorState;
  /** Why the source was stopped, when state is conflict. */
  readonly conflict?: string;
}

export interface AppendCursor extends CursorCommon {
  readonly type: 'append';
  readonly device: string;
  readonly inode: string;
  readonly offset: number;
  /** Source lines consumed, so numbering continues without recounting from byte 0. */
  readonly ord: number;
  readonly lastRecord: string;
  readonly prefixSha256: string;
  readonly sizeAtScan: number;
}

export interface SnapshotCursor extends CursorCommon {
  readonly type: 'snapshot';
  readonly contentSha256: string;
  readonly size: number;
}

export type Cursor = AppendCursor | SnapshotCursor;

export function readCursor(file: string): Cursor | undefined {
  const values = readState(file);
  if (!values) return undefined;
  const common = {
    source: values.get('source') ?? '',
    lastSeq: wholeNumber(values, 'last_seq', file),
    state: parseCursorState(values.get('state'), file),
    conflict: values.get('conflict') || undefined,
  };
  const type = values.get('kind');
  if (type === 'append') {
    return {
      type,
      ...common,
      device: values.get('dev') ?? '',
      inode: values.get('ino') ?? '',
      offset: wholeNumber(values, 'offset', file),
      ord: wholeNumber(values, 'ord', file),
      lastRecord: values.get('last_record') ?? '',
      prefixSha256: values.get('prefix_sha256') ?? '',
      sizeAtScan: wholeNumber(values, 'size_at_scan', file),
    };
  }
  if (type === 'snapshot') {
    return { type, ...common, contentSha256: values.get('content_sha256') ?? '', size: wholeNumber(values, 'size', file) };
  }
  throw new Error(`${file}: unknown cursor kind ${JSON.stringify(type)}`);
}

function parseCursorState(text: string | undefined, file: string): CursorState {
  if (text === 'active' || text === 'source_gone' || text === 'conflict') return text;
  throw new Error(`${file}: unknown cursor state ${JSON.stringify(text)}`);
}

export function writeCursor(file: string, cursor: Cursor, now: Date): void {
  replaceFile(file, cursorText(cursor, now));
}

/** A cursor's file content, for a caller that commits several files at once. */
export function cursorText(cursor: Cursor, now: Date): string {
  const common: [string, string | number | undefined][] = [
    ['schema', CURSOR_SCHEMA],
    ['kind', cursor.type],
    ['source', cursor.source],
  ];
  const specific: [string, string | number | undefined][] =
    cursor.type === 'append'
      ? [
          ['dev', cursor.device],
          ['ino', cursor.inode],
          ['offset', cursor.offset],
          ['ord', cursor.ord],
          ['last_record', cursor.lastRecord],
          ['prefix_sha256', cursor.prefixSha256],
          ['size_at_scan', cursor.sizeAtScan],
        ]
      : [
          ['content_sha256', cursor.contentSha256],
          ['size', cursor.size],
        ];
  return formatState([
    ...common,
    ...specific,
    ['last_seq', cursor.lastSeq],
    ['updated_at', now.toISOString()],
    ['state', cursor.state],
    ['conflict', cursor.conflict],
  ]);
}
