// What a waiting renderer child reads of a conversation before it is asked
// to render it.
//
// A waiting renderer child (generator/kept-renderer.ts) is idle while the
// export parses, and then spends much of a small export's site step loading
// the changed conversation: its `.sd` rows and its round chain. Those files
// are write-once in the storage zone, and the bundle the child renders from
// holds copies of them. So the export tells the waiting child, once it has
// collected, which sessions have new evidence, and the child reads them from
// the storage zone while the export parses.
//
// The site is a function of the bundle alone (DESIGN.md), and a bundle file
// may differ from the storage file it was copied from (a redacted export
// rewrites them). So what was read ahead is used only for a bundle file
// whose SHA-256 is that of the bytes read: checking reads the file again,
// which costs a fraction of parsing it, and a file that differs is read from
// the bundle as if nothing had been read ahead.
//
// Reading ahead shares the cores with the parse step, and that share grows
// with the session: for a very large one it costs the parse more than it
// saves the site. So no more than READ_AHEAD_MOST_BYTES of a session's `.sd`
// is read ahead, and its rounds only with all of its `.sd`. A child reading
// at the lowest priority would not slow the parse, but an unprivileged
// process cannot raise its priority again, and it would then render starved
// on a busy machine. The measurements behind the bound are in
// bench/results/measurements-behind-choices.md.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { indexEntryOf, type IndexEntry } from '../../index/session-index.ts';
import { digestOfFile } from '../../files/digest.ts';
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

/** The most bytes of a session's `.sd` read ahead; see above. */
export const READ_AHEAD_MOST_BYTES = 64 << 20;

const keyOf = (session: string, file: LandedFileEntry): string => `${session}/${file.relative}`;

/**
 * What one rendering process read ahead and has not yet taken: `.sd` reads
 * by their landed file's path inside the storage layout, with the SHA-256
 * of the bytes read, and folds by conversation, with the SHA-256 of each
 * round folded. The kept renderer makes one (generator/renderer-entry.mjs)
 * and hands it to its site reader, whose loads take from it
 * (bundle.ts, loadConversation).
 */
export class ReadAhead {
  /** Files whose reading ahead a load used, and files it read again because the bundle's bytes differ: for tests and profiles. */
  readonly use = { taken: 0, refused: 0 };
  private readonly sessionData = new Map<string, { sha256: string; read: RowRead[] }>();
  private readonly folds = new Map<string, { rounds: { name: string; sha256: string }[]; folded: Folded }>();

  /**
   * Reads the `.sd` files and the round chain of each of `sessions` (a
   * session is its own conversation) from the storage zone `data`, to be
   * taken by the load of the same files from a bundle: of a session with
   * more than `mostBytes` of `.sd`, the files that fit in that many bytes
   * and not its rounds. Anything that cannot be read is skipped: the load
   * reads it then.
   */
  read(data: string, sessions: readonly string[], mostBytes = READ_AHEAD_MOST_BYTES): void {
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
          const folded = foldRounds(roundFiles(data, session), undefined, (file, sha256) => rounds.push({ name: path.basename(file), sha256 }));
          this.folds.set(session, { rounds, folded });
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
          this.sessionData.set(keyOf(session, file), { sha256: hash.digest('hex'), read });
        } catch {
          // No `.sd` yet, or one being derived: the load reads it.
        }
      }
    }
  }

  /** The rows of the `.sd` beside `file` of `session` in a bundle as they were read ahead, with the SHA-256 of its bytes, when they were and its bytes are those read. */
  rowsOf(session: string, file: LandedFileEntry): { sha256: string; read: RowRead[] } | undefined {
    const key = keyOf(session, file);
    const ahead = this.sessionData.get(key);
    this.sessionData.delete(key);
    if (ahead === undefined) return undefined;
    if (digestOfFile(sessionDataBeside(file.path)) === ahead.sha256) {
      this.use.taken++;
      return ahead;
    }
    this.use.refused++;
    return undefined;
  }

  /**
   * The fold of a conversation's rounds in the bundle, checked link by link
   * as session-flow/chain.ts's readChain checks them: the fold read ahead is
   * taken when the bundle's chain begins with the same files, byte for byte,
   * and the rounds after them are read now.
   */
  foldOf(bundle: string, conversation: string): Folded {
    const ahead = this.folds.get(conversation);
    this.folds.delete(conversation);
    const files = roundFiles(bundle, conversation);
    let folded: Folded | undefined;
    let from = 0;
    if (ahead !== undefined) {
      if (ahead.rounds.length <= files.length && ahead.rounds.every((round, index) => path.basename(files[index]!) === round.name && digestOfFile(files[index]!) === round.sha256)) {
        folded = ahead.folded;
        from = ahead.rounds.length;
        // Each round's head names the file it was read from: the bundle's, as if read there.
        folded.rounds.forEach((round, index) => (folded!.rounds[index] = { ...round, file: files[index]! }));
        this.use.taken += from;
      } else this.use.refused++;
    }
    return foldRounds(files.slice(from), folded);
  }
}

function sizeOrNothing(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
