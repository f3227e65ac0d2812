// Where everything lives in the storage zone (docs/formats.md):
//
//   <data>/<session-id>/session.state
//   <data>/<session-id>/streams/main/transcript.cursor
//   <data>/<session-id>/streams/main/transcript-<ts>-<seq>.jsonl   landed, 0444
//   <data>/<session-id>/streams/main/transcript-<ts>-<seq>.sd      derived, same seq, 0444
//   <data>/<session-id>/streams/<agent-id>/...                     child streams, flat by agent id
//   <data>/<session-id>/runs/<run-id>/journal-*, manifest-*, script-*
//
// Children are flat by agent id and never nested by workflow or by parent
// agent: the path must not assert a relationship that assembly is supposed to
// derive, because correcting a wrong join would then mean moving write-once
// files (seed design-notes/01 §2.2).

import path from 'node:path';

export const MAIN_STREAM = 'main';

/**
 * The file at the top of a data folder that says the tool made it one
 * (export/data-folder.ts decides what --data may be), and the first line
 * of its text.
 */
export const DATA_MARKER = '.sessionizer-data';
export const DATA_MARKER_SCHEMA = 'sessionizer-data/1';

/** The folders of a session folder: its streams, and its workflow runs. */
export const STREAMS = 'streams';
export const RUNS = 'runs';
export const SESSION_STATE = 'session.state';
export const COLLECT_LOCK = 'collect.lock';
/** The session's derived index (src/index/session-index.ts). */
export const SESSION_INDEX = 'session.index';

/** Everything a session folder may hold at its top, besides temporary files an interrupted write left. */
export const SESSION_ENTRIES: ReadonlySet<string> = new Set([STREAMS, RUNS, SESSION_STATE, COLLECT_LOCK, SESSION_INDEX]);

/** A folder that holds the files of one stream or one workflow run. */
export type Place =
  | { readonly type: 'stream'; readonly stream: string }
  | { readonly type: 'run'; readonly run: string };

// A session's or a conversation's id, as the storage zone names a folder by
// it. Claude Code's session ids are UUIDs, in either case; the sessions this
// tool writes (a restored branch) are UUIDs too. The rule is wider, so that
// another runtime's ids fit, and narrow enough to be one plain name inside
// the data folder: no path separator, never `.` or `..`, nothing the tool's
// own entries (`_conversations`, `_site-cache`) or its temporary files
// (`.<name>.<pid>-<thread>.tmp`) start with.
const STORED_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** What a stored id may be, in words, for an error that refuses one. */
export const STORED_ID_RULE = "letters, digits, '.', '_' and '-', starting with a letter or digit, at most 128";

/** Whether `id` can name a session or conversation folder of the storage zone. */
export function isStoredId(id: string): boolean {
  return STORED_ID.test(id);
}

export function sessionFolder(data: string, session: string): string {
  return path.join(data, session);
}

export function placeFolder(data: string, session: string, place: Place): string {
  return place.type === 'stream'
    ? path.join(data, session, STREAMS, place.stream)
    : path.join(data, session, RUNS, place.run);
}

/** The place's path inside the session folder, with forward slashes. */
export function placePath(place: Place): string {
  return place.type === 'stream' ? `${STREAMS}/${place.stream}` : `${RUNS}/${place.run}`;
}

export function sessionStatePath(data: string, session: string): string {
  return path.join(data, session, SESSION_STATE);
}

export function lockPath(data: string, session: string): string {
  return path.join(data, session, COLLECT_LOCK);
}

// A cursor is `<prefix>.cursor`, never `<prefix>-cursor`: landed files are
// `<prefix>-<ts>-<seq>.jsonl`, and a hyphen would give the cursor the same
// prefix as the data it tracks, turning every prefix scan into a bug.
export function cursorName(cursorKey: string): string {
  return `${cursorKey}.cursor`;
}

// Sequence numbers are zero-padded so that names sort in landing order. Six
// digits cover a million landings in one session; past that the name simply
// grows, and parsing never depends on the width.
export function landedName(prefix: string, at: Date, seq: number): string {
  return `${prefix}-${compactTime(at)}-${String(seq).padStart(6, '0')}.jsonl`;
}

export function sessionDataName(landed: string): string {
  return landed.replace(/\.jsonl$/, '.sd');
}

/** The path of the `.sd` beside the landed file at path `landed`. */
export function sessionDataBeside(landed: string): string {
  return path.join(path.dirname(landed), sessionDataName(path.basename(landed)));
}

/** The name of the landed file a `.sd` named `sessionData` is derived from; undefined for a name that is no `.sd`. */
export function landedNameOf(sessionData: string): string | undefined {
  return sessionData.endsWith('.sd') ? `${sessionData.slice(0, -'.sd'.length)}.jsonl` : undefined;
}

// <prefix>-<ts>-<seq>.jsonl, where ts has no hyphen and prefix has none either.
const LANDED_NAME = /^([a-z_]+)-(\d{8}T\d{6}\.\d{3}Z)-(\d+)\.jsonl$/;

export interface LandedName {
  readonly prefix: string;
  readonly time: string;
  readonly seq: number;
}

export function parseLandedName(name: string): LandedName | undefined {
  const match = LANDED_NAME.exec(name);
  if (!match) return undefined;
  return { prefix: match[1]!, time: match[2]!, seq: Number(match[3]) };
}

// Compact RFC 3339 with no colon, so the name is valid on every filesystem and
// sorts as text: 20260831T091204.481Z. JavaScript clocks give milliseconds;
// nothing finer is claimed. Two landings in the same millisecond still differ
// by their sequence number.
export function compactTime(at: Date): string {
  return at.toISOString().replace(/[-:]/g, '');
}
