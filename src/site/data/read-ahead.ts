// What a waiting renderer child reads of a conversation before it is asked
// to render it.
//
// After one line was added to the 200 MB benchmark corpus's biggest
// conversation (30 MB), the renderer child that waits for the site step
// (build/kept-renderer.ts) sat idle for 0.86 s while the export parsed, then
// spent 0.76 s loading that conversation: its `.sd` rows (0.40 s) and its
// round chain (0.15 s) above all. Those files are write-once in the storage
// zone, and the bundle the child renders from holds copies of them. So the
// export tells the waiting child, once it has collected, which sessions have
// new evidence, and the child reads them from the storage zone while the
// export parses.
//
// The site is a function of the bundle alone (DESIGN.md), and a bundle file
// may differ from the storage file it was copied from (a redacted export
// rewrites them). So what was read ahead is used only for a bundle file
// whose SHA-256 is that of the bytes read: the check reads the file again,
// which costs a fraction of parsing it (that conversation's 29.6 MB of `.sd`
// took 0.40 s to parse; reading and SHA-256 run at about 1.2 GB/s here), and a
// file that differs is read from the bundle as if nothing had been read
// ahead.
//
// Measured on that change, three runs each: the site step took 1.57-1.60 s
// against 2.35-2.50 s, the whole export 4.06 s against 4.58-4.61 s. The
// parse step, sharing the two cores with the child reading, took 1.26-1.37 s
// against 1.00-1.06 s. That share grows with the session, and on a larger
// one it costs more than it saves: one line added to a 75 MB conversation
// (of a 500 MB corpus), exports of 9.54-9.98 s against 9.65-11.43 s; to the
// 151 MB one of the 1 GB corpus (150 MB of `.sd`), 20.15-22.95 s against
// 17.87-18.96 s, its parse step 6.1-8.6 s against 3.7-4.1 s. So no more
// than READ_AHEAD_MOST_BYTES of a session's `.sd` is read ahead, and its
// rounds only with all of its `.sd`: with that, the 151 MB conversation's
// export took 17.00-17.87 s (site step 9.4-9.8 s against 10.8-11.3 s; parse
// 4.4-4.6 s), and with twice as much 17.12-17.53 s, the parse as much slower
// as the site faster. (Reading the whole session ahead at the lowest
// priority kept the parse step near its time and made that export
// 16.2-16.9 s, but an unprivileged process cannot raise its priority again,
// and the child would then render at the lowest priority too, starved on a
// busy machine.)

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { indexEntryOf, type IndexEntry } from '../../index/session-index.ts';
import { digestOf, digestOfFile } from '../../files/digest.ts';
import { sessionDataBeside } from '../../landing/layout.ts';
import { landedFilesOfSession, type LandedFileEntry } from '../../landing/session-state.ts';
import { readSessionData } from '../../session-data/derive.ts';
import type { SessionDataRow } from '../../session-data/format.ts';
import { foldRounds, roundFiles, type Folded } from '../../session-flow/chain.ts';

/** One row of a `.sd`, where its line is in the file, and the session index entry it makes. */
export interface RowRead {
  readonly row: SessionDataRow;
  readonly offset: number;
  readonly length: number;
  readonly entry: IndexEntry;
}

/** Reads the rows of the `.sd` beside landed file `file` one by one, with the index entries they make. `hash` is given the bytes read. */
export function* rowsOfSessionData(file: LandedFileEntry, hash?: crypto.Hash): Generator<RowRead> {
  let kind = '';
  for (const entry of readSessionData(sessionDataBeside(file.path), { hash })) {
    if (entry.type === 'header') kind = entry.header.kind;
    else yield { row: entry.row, offset: entry.offset, length: entry.length, entry: indexEntryOf(file.seq, file.place, kind, entry.row) };
  }
}

/** Files whose reading ahead a load used, and files it read again because the bundle's bytes differ: for tests and profiles. */
export const readAheadUse = { taken: 0, refused: 0 };

/**
 * What was read ahead and not yet taken: `.sd` reads by their landed file's
 * path inside the storage layout, with the SHA-256 of the bytes read, and
 * folds by conversation, with the SHA-256 of each round folded.
 */
const sessionData = new Map<string, { sha256: string; read: RowRead[] }>();
const folds = new Map<string, { rounds: { name: string; sha256: string }[]; folded: Folded }>();

const keyOf = (session: string, file: LandedFileEntry): string => `${session}/${file.relative}`;

/** The most bytes of a session's `.sd` read ahead; see above. */
export const READ_AHEAD_MOST_BYTES = 64 << 20;

/**
 * Reads the `.sd` files and the round chain of each of `sessions` (a session
 * is its own conversation) from the storage zone `data`, to be taken by the
 * load of the same files from a bundle: of a session with more than
 * `mostBytes` of `.sd`, the files that fit in that many bytes and not its
 * rounds. Anything that cannot be read is skipped: the load reads it then.
 */
export function readAhead(data: string, sessions: readonly string[], mostBytes = READ_AHEAD_MOST_BYTES): void {
  for (const session of sessions) {
    let sized: { file: LandedFileEntry; size: number }[];
    try {
      sized = landedFilesOfSession(data, session).map((file) => ({ file, size: sizeOrNothing(sessionDataBeside(file.path)) }));
    } catch {
      continue;
    }
    if (sized.reduce((bytes, { size }) => bytes + size, 0) <= mostBytes) {
      try {
        const rounds: { name: string; sha256: string }[] = [];
        const folded = foldRounds(roundFiles(data, session), undefined, (file, bytes) => rounds.push({ name: path.basename(file), sha256: digestOf(bytes) }));
        folds.set(session, { rounds, folded });
      } catch {
        // A chain being written or broken: the load reads it, and reports what is wrong.
      }
    }
    let budget = mostBytes;
    for (const { file, size } of sized) {
      if (size > budget) continue;
      budget -= size;
      try {
        // The digest of the very bytes parsed, so that a file replaced meanwhile is never taken for them.
        const hash = crypto.createHash('sha256');
        const read = [...rowsOfSessionData(file, hash)];
        sessionData.set(keyOf(session, file), { sha256: hash.digest('hex'), read });
      } catch {
        // No `.sd` yet, or one being derived: the load reads it.
      }
    }
  }
}

/** The rows of the `.sd` beside `file` of `session` in a bundle as they were read ahead, with the SHA-256 of its bytes, when they were and its bytes are those read. */
export function readAheadOf(session: string, file: LandedFileEntry): { sha256: string; read: RowRead[] } | undefined {
  const key = keyOf(session, file);
  const ahead = sessionData.get(key);
  sessionData.delete(key);
  if (ahead === undefined) return undefined;
  if (digestOfFile(sessionDataBeside(file.path)) === ahead.sha256) {
    readAheadUse.taken++;
    return ahead;
  }
  readAheadUse.refused++;
  return undefined;
}

/**
 * The fold of a conversation's rounds in the bundle, checked link by link
 * as session-flow/chain.ts's readChain checks them: the fold read ahead is
 * taken when the bundle's chain begins with the same files, byte for byte,
 * and the rounds after them are read now.
 */
export function foldOf(bundle: string, conversation: string): Folded {
  const ahead = folds.get(conversation);
  folds.delete(conversation);
  const files = roundFiles(bundle, conversation);
  let folded: Folded | undefined;
  let from = 0;
  if (ahead !== undefined) {
    if (ahead.rounds.length <= files.length && ahead.rounds.every((round, index) => path.basename(files[index]!) === round.name && digestOfFile(files[index]!) === round.sha256)) {
      folded = ahead.folded;
      from = ahead.rounds.length;
      // Each round's head names the file it was read from: the bundle's, as if read there.
      folded.rounds.forEach((round, index) => (folded!.rounds[index] = { ...round, file: files[index]! }));
      readAheadUse.taken += from;
    } else readAheadUse.refused++;
  }
  return foldRounds(files.slice(from), folded);
}

function sizeOrNothing(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
