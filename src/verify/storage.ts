// Verifies a storage zone from its files alone: no source, no network.
//
// For every session it checks that each landed file is what its name and
// place say (header, sequence, session, stream or run), that every record's
// bytes still match their digest, that sequence numbers run 1..N with no gap
// and no repeat across all the session's streams, and that each landed file
// has its `.sd`, naming the landed file's digest and holding one row per
// record. With `deep`, every `.sd` is derived again from its landed file and
// compared line by line, and each session's index is made from the rows
// derived again, for assembling each conversation again (chains.ts). The
// checks themselves are evidence.ts's, shared with the archive.
//
// Every problem is collected, with its file and what was expected and found;
// verification never stops at the first.

import fs from 'node:fs';
import path from 'node:path';
import { writerOfTemporary } from '../files/atomic-file.ts';
import { BUFFER_BYTES } from '../files/buffer-pool.ts';
import { parseLandedName, RUNS, SESSION_ENTRIES, sessionDataBeside, sessionStatePath, STREAMS } from '../landing/layout.ts';
import { withOpenFile } from '../files/line-reader.ts';
import { landedFilesOfSession } from '../landing/session-state.ts';
import { listFolder } from '../files/folders.ts';
import { readState } from '../landing/state-text.ts';
import type { SessionIndex } from '../index/session-index.ts';
import type { LandedDigest } from '../session-flow/chain.ts';
import { PARSED_ENTRY_BYTES, pastBound, PROBLEMS_NAMED, ProblemsUpTo, STATE_BYTES } from './bounds.ts';
import { EvidenceCheck, type EvidenceOptions } from './evidence.ts';

export interface Problem {
  /** Path inside the storage zone, with forward slashes. */
  readonly path: string;
  readonly what: string;
}

export interface StorageReport {
  readonly sessions: number;
  readonly landedFiles: number;
  readonly records: number;
  readonly problems: Problem[];
  /** Things worth knowing that are not damage, such as a temporary file left by a crash. */
  readonly notes: Problem[];
}

export type VerifyOptions = EvidenceOptions;

export interface StorageVerification extends StorageReport {
  /** With `deep`: each session's index, made from its `.sd` derived again, for assembling again. */
  readonly indexes: Map<string, SessionIndex>;
  /** Each session's landed files as found, for the input digests of its rounds (verifyChains). */
  readonly landed: Map<string, LandedDigest[]>;
}

export function verifyStorage(data: string, options: VerifyOptions = {}): StorageVerification {
  const problems: Problem[] = [];
  const notes: Problem[] = [];
  const relative = (file: string): string => path.relative(data, file).split(path.sep).join('/');
  const evidence = new EvidenceCheck(options);
  const sessions = listFolder(data).filter((name) => !name.startsWith('_') && !name.startsWith('.') && fs.statSync(path.join(data, name)).isDirectory());
  const chunk = Buffer.allocUnsafeSlow(BUFFER_BYTES);
  // A session's folder may hold any number of files out of place: the first are named, the rest counted.
  const outOfPlace = new ProblemsUpTo(PROBLEMS_NAMED, (more, all) => ({ path: '.', what: `${more} more files out of place in the storage layout, ${all} in all; the first ${all - more} are named` }));
  for (const session of sessions) {
    const problem = (file: string, what: string): void => {
      problems.push({ path: relative(file), what });
    };
    checkPlaces(data, session, (file, what) => outOfPlace.add(relative(file), what), (file, what) => notes.push({ path: relative(file), what }));
    const landed = landedFilesOfSession(data, session);
    // The .sd first: it names the dialect, so that only its converter derives again.
    for (const file of landed) {
      const sessionData = sessionDataBeside(file.path);
      if (fs.existsSync(sessionData)) feedFile(sessionData, relative(sessionData), evidence, chunk);
      feedFile(file.path, relative(file.path), evidence, chunk);
    }
    const highest = landed.length > 0 ? landed[landed.length - 1]!.seq : 0;
    const stateFile = sessionStatePath(data, session);
    const stateSize = sizeOf(stateFile);
    if (stateSize !== undefined && stateSize > STATE_BYTES) {
      problem(stateFile, `${pastBound(stateSize, STATE_BYTES, 'a state file')}; it was not read`);
      continue;
    }
    const state = readState(stateFile);
    const next = Number(state?.get('next_seq'));
    if (state && Number.isSafeInteger(next) && next <= highest) problem(sessionStatePath(data, session), `next_seq is ${next}, but sequence ${highest} is already landed (expected more than ${highest})`);
  }
  const checked = evidence.finish();
  return { sessions: sessions.length, landedFiles: checked.landedFiles, records: checked.records, problems: [...checked.problems, ...outOfPlace.problems(), ...problems], notes: [...notes, ...checked.notes], indexes: checked.indexes, landed: checked.landed };
}

/** The size of a file, or undefined when there is none. */
function sizeOf(file: string): number | undefined {
  try {
    return fs.statSync(file).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** A landed file's or `.sd`'s bytes into its check, in pieces of the shared buffer's size; one past its bound is not read. */
function feedFile(file: string, relative: string, evidence: EvidenceCheck, chunk: Buffer): void {
  withOpenFile(file, (descriptor) => {
    const size = fs.fstatSync(descriptor).size;
    if (size > PARSED_ENTRY_BYTES) return evidence.tooLarge(relative, size);
    const sink = evidence.file(relative);
    for (;;) {
      const got = fs.readSync(descriptor, chunk, 0, chunk.length, null);
      if (got === 0) break;
      sink.push(chunk.subarray(0, got));
    }
    sink.end();
  });
}

const LEFT_TEMPORARY = 'a temporary file left by an interrupted write; it is not part of the data, and the next collect, parse or export removes it once its writer has ended';

function checkPlaces(data: string, session: string, problem: (file: string, what: string) => void, note: (file: string, what: string) => void): void {
  const root = path.join(data, session);
  for (const name of listFolder(root)) {
    if (writerOfTemporary(name) !== undefined) note(path.join(root, name), LEFT_TEMPORARY);
    else if (!SESSION_ENTRIES.has(name)) problem(path.join(root, name), 'a file the storage layout has no place for');
  }
  for (const group of [STREAMS, RUNS]) {
    for (const place of listFolder(path.join(root, group))) {
      for (const name of listFolder(path.join(root, group, place))) {
        const file = path.join(root, group, place, name);
        if (writerOfTemporary(name) !== undefined) note(file, LEFT_TEMPORARY);
        else if (name.endsWith('.sd')) {
          if (!fs.existsSync(file.replace(/\.sd$/, '.jsonl'))) problem(file, 'a .sd without its landed file');
        } else if (!name.endsWith('.cursor') && !parseLandedName(name)) problem(file, 'a file the storage layout has no place for');
      }
    }
  }
}
