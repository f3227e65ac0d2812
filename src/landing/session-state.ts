// session.state holds the session's next sequence number and what is known of
// its liveness.
//
// One counter spans every stream of a session, so a landed file's sequence
// alone orders it against every other file of the session and a gap is
// visible. That is also why a session is processed by one collector at a time
// (lock.ts): two writers would hand out the same number.
//
// The filesystem is the authority on the counter. A crash between landing a
// file and saving session.state must not reuse that file's number, so the
// next number is never lower than one past the highest sequence on disk.
//
// Nor is it higher than a landed file or a cursor accounts for: a number is
// counted only once its file is renamed into place (collection/
// landing-writer.ts), so a saved counter past the highest landed file is a
// number taken by a landing that failed, and using it would leave a gap that
// verify reports for ever. Such a counter is taken back to one past the
// highest sequence a landed file or a cursor names (a cursor names the last
// file it committed, which a person may have removed since: its number is
// never used again, as a round may have read it). With a cursor that cannot
// be read, the saved counter stands.

import fs from 'node:fs';
import path from 'node:path';
import { readCursor } from './cursor.ts';
import { parseLandedName, RUNS, sessionStatePath, sessionFolder, STREAMS } from './layout.ts';
import { replaceFile } from '../files/atomic-file.ts';
import { listFolder } from '../files/folders.ts';
import { formatState, parseState, readState, type StateValues } from './state-text.ts';

export const SESSION_STATE_SCHEMA = 1;

/**
 * Whether the session may still grow. No record ever says a session ended,
 * and a transcript quiet for a month can be resumed, so a session is never
 * complete: at best it is quiet since a time (seed design-notes/01 §2.7).
 */
export type Liveness = 'live' | 'quiet' | 'unknown';

export interface SessionState {
  readonly nextSeq: number;
  readonly liveness: Liveness;
  /** Modification time of the newest source, when known. */
  readonly quietSince?: string;
  /** When a pass last wrote the state: one that landed or mended something, since a pass that finds nothing new writes nothing. */
  readonly lastScan?: string;
}

/** `landed` is the session's landed files when the caller has listed them already. */
export function readSessionState(data: string, session: string, landed: readonly LandedFileEntry[] = landedFilesOfSession(data, session)): SessionState {
  return stateOf(readState(sessionStatePath(data, session)), landed, () => highestCommittedSeq(data, session));
}

/**
 * Whether the session's state file is as a pass writes it: there once
 * anything is landed, undamaged, and with a counter not behind the files.
 * A pass that finds nothing new writes the state only when it is not.
 */
export function sessionStateIsSound(data: string, session: string, landed: readonly LandedFileEntry[]): boolean {
  let text: string;
  try {
    text = fs.readFileSync(sessionStatePath(data, session), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return landed.length === 0;
    throw error;
  }
  return text === sessionStateText(stateOf(parseState(text), landed, () => highestCommittedSeq(data, session)));
}

/** `committed` is asked only of a counter past the landed files: the highest sequence a cursor names, undefined when one cannot be read. */
function stateOf(values: StateValues | undefined, landed: readonly LandedFileEntry[], committed: () => number | undefined): SessionState {
  const onDisk = highestSeq(landed);
  if (!values) return { nextSeq: onDisk + 1, liveness: 'unknown' };
  // A damaged counter costs nothing: the files on disk say what it must be.
  const saved = Number(values.get('next_seq'));
  const liveness = values.get('liveness');
  let nextSeq = Number.isSafeInteger(saved) && saved > 0 ? Math.max(saved, onDisk + 1) : onDisk + 1;
  if (nextSeq > onDisk + 1) {
    const cursors = committed();
    if (cursors !== undefined) nextSeq = Math.max(onDisk, cursors) + 1;
  }
  return {
    nextSeq,
    liveness: liveness === 'live' || liveness === 'quiet' ? liveness : 'unknown',
    quietSince: values.get('quiet_since') || undefined,
    lastScan: values.get('last_scan') || undefined,
  };
}

export function writeSessionState(data: string, session: string, state: SessionState): void {
  replaceFile(sessionStatePath(data, session), sessionStateText(state));
}

/** session.state's content, for a caller that commits several files at once. */
export function sessionStateText(state: SessionState): string {
  return formatState([
    ['schema', SESSION_STATE_SCHEMA],
    ['next_seq', state.nextSeq],
    ['liveness', state.liveness],
    ['quiet_since', state.quietSince],
    ['last_scan', state.lastScan],
  ]);
}

/** The highest sequence number the session's cursors name as landed, or 0; undefined when a cursor cannot be read. */
function highestCommittedSeq(data: string, session: string): number | undefined {
  let highest = 0;
  for (const [place, names] of listSession(data, session).folders) {
    for (const name of names) {
      if (!name.endsWith('.cursor')) continue;
      try {
        highest = Math.max(highest, readCursor(path.join(sessionFolder(data, session), place, name))?.lastSeq ?? 0);
      } catch {
        return undefined;
      }
    }
  }
  return highest;
}

/** The highest sequence number of the landed files, or 0. */
function highestSeq(landed: readonly LandedFileEntry[]): number {
  let highest = 0;
  for (const file of landed) highest = Math.max(highest, file.seq);
  return highest;
}

export interface LandedFileEntry {
  /** Absolute path. */
  readonly path: string;
  /** Path inside the session folder, with forward slashes: streams/main/transcript-….jsonl */
  readonly relative: string;
  /** The stream or run folder it is in: streams/main. */
  readonly place: string;
  readonly prefix: string;
  readonly seq: number;
}

/** Every landed file of a session, in sequence order. */
export function landedFilesOfSession(data: string, session: string): LandedFileEntry[] {
  return listSession(data, session).landed;
}

/** A session's stream and run folders, each listed once. */
export interface SessionListing {
  /** Its landed files, in sequence order. */
  readonly landed: LandedFileEntry[];
  /** Every stream or run folder, as streams/<place> or runs/<place>, with the names in it. */
  readonly folders: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Lists a session's folders once, for a caller that asks several questions
 * of them: a collection pass asks three (its landed files for the counter,
 * those without a `.sd`, its cursors), and listing each time would be most
 * of a pass that finds little new.
 */
export function listSession(data: string, session: string): SessionListing {
  const landed: LandedFileEntry[] = [];
  const folders = new Map<string, Set<string>>();
  const root = sessionFolder(data, session);
  for (const group of [STREAMS, RUNS]) {
    for (const place of listFolder(path.join(root, group))) {
      const folder = path.join(root, group, place);
      const names = listFolder(folder);
      folders.set(`${group}/${place}`, new Set(names));
      for (const name of names) {
        const parsed = parseLandedName(name);
        if (!parsed) continue;
        landed.push({ path: path.join(folder, name), relative: `${group}/${place}/${name}`, place: `${group}/${place}`, prefix: parsed.prefix, seq: parsed.seq });
      }
    }
  }
  return { landed: landed.sort((a, b) => a.seq - b.seq), folders };
}
