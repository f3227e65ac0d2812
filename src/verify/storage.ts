// Verifies a storage zone from its files alone: no source, no network.
//
// For every session it checks that each landed file is what its name and
// place say (header, sequence, session, stream or run), that every record's
// bytes still match their digest, that sequence numbers run 1..N with no gap
// and no repeat across all the session's streams, and that each landed file
// has its `.sd`, naming the landed file's digest and holding one row per
// record. With `deep`, every `.sd` is derived again from its landed file and
// compared byte for byte.
//
// Every problem is collected, with its file and what was expected and found;
// verification never stops at the first.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { digestOf, digestOfFile, readLandedFile, type LandedHeader } from '../landing/landed-file.ts';
import { parseLandedName, sessionDataName, sessionStatePath } from '../landing/layout.ts';
import { landedFilesOfSession, listFolder } from '../landing/session-state.ts';
import { readState } from '../landing/state-text.ts';
import { deriveSessionData, readSessionData, type Converter } from '../session-data/derive.ts';
import { INDEX_NAME } from '../index/session-index.ts';

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

export interface VerifyOptions {
  readonly deep?: boolean;
  /** The converter for a `.sd` dialect, for `deep`. */
  readonly converterFor?: (dialect: string) => Converter | undefined;
}

export function verifyStorage(data: string, options: VerifyOptions = {}): StorageReport {
  const problems: Problem[] = [];
  const notes: Problem[] = [];
  let landedFiles = 0;
  let records = 0;
  const sessions = listFolder(data).filter((name) => !name.startsWith('_') && !name.startsWith('.') && fs.statSync(path.join(data, name)).isDirectory());
  for (const session of sessions) {
    const relative = (file: string): string => path.relative(data, file).split(path.sep).join('/');
    const problem = (file: string, what: string): void => {
      problems.push({ path: relative(file), what });
    };
    checkPlaces(data, session, problem, (file, what) => notes.push({ path: relative(file), what }));
    const landed = landedFilesOfSession(data, session);
    // One counter across all the session's streams: 1, 2, … N, each once.
    const seen = new Map<number, string>();
    for (const file of landed) {
      const earlier = seen.get(file.seq);
      if (earlier !== undefined) problem(file.path, `sequence ${file.seq} is used twice (also by ${earlier})`);
      seen.set(file.seq, file.relative);
    }
    const highest = landed.length > 0 ? landed[landed.length - 1]!.seq : 0;
    for (let seq = 1; seq <= highest; seq++) {
      if (!seen.has(seq)) problems.push({ path: `${session}/`, what: `sequence ${seq} is missing: no landed file has it (expected 1 to ${highest} with no gap)` });
    }
    const state = readState(sessionStatePath(data, session));
    const next = Number(state?.get('next_seq'));
    if (state && Number.isSafeInteger(next) && next <= highest) problem(sessionStatePath(data, session), `next_seq is ${next}, but sequence ${highest} is already landed (expected more than ${highest})`);
    for (const file of landed) {
      landedFiles++;
      records += checkLanded(file.path, session, file.relative, file.seq, problem, options);
    }
  }
  return { sessions: sessions.length, landedFiles, records, problems, notes };
}

function checkPlaces(data: string, session: string, problem: (file: string, what: string) => void, note: (file: string, what: string) => void): void {
  const root = path.join(data, session);
  for (const name of listFolder(root)) {
    if (!['streams', 'runs', 'session.state', 'collect.lock', INDEX_NAME].includes(name)) problem(path.join(root, name), 'a file the storage layout has no place for');
  }
  for (const group of ['streams', 'runs']) {
    for (const place of listFolder(path.join(root, group))) {
      for (const name of listFolder(path.join(root, group, place))) {
        const file = path.join(root, group, place, name);
        if (name.endsWith('.tmp')) note(file, 'a temporary file left by an interrupted write; it is not part of the data and can be removed');
        else if (name.endsWith('.sd')) {
          if (!fs.existsSync(file.replace(/\.sd$/, '.jsonl'))) problem(file, 'a .sd without its landed file');
        } else if (!name.endsWith('.cursor') && !parseLandedName(name)) problem(file, 'a file the storage layout has no place for');
      }
    }
  }
}

/** Checks one landed file and its `.sd`; returns how many records it holds. */
function checkLanded(file: string, session: string, relative: string, seq: number, problem: (file: string, what: string) => void, options: VerifyOptions): number {
  const place = relative.split('/').slice(0, 2);
  let header: LandedHeader | undefined;
  let count = 0;
  try {
    for (const entry of readLandedFile(file)) {
      if (entry.type === 'header') {
        header = entry.header;
        if (header.seq !== seq) problem(file, `the header says sequence ${header.seq}, the name says ${seq}`);
        if (header.session !== session) problem(file, `the header names session ${header.session}, but the file is in ${session}`);
        const placed = place[0] === 'streams' ? header.stream : header.run;
        if (placed !== place[1]) problem(file, `the header names ${place[0] === 'streams' ? 'stream' : 'run'} ${placed}, but the file is in ${place.join('/')}`);
        continue;
      }
      count++;
      const found = digestOf(entry.record.payload);
      if (found !== entry.record.sha) problem(file, `record ${entry.row} (source line ${entry.record.ord}): its bytes do not match its digest (expected sha ${entry.record.sha}, found ${found})`);
    }
  } catch (error) {
    problem(file, (error as Error).message.replace(`${file}: `, ''));
    return count;
  }
  checkSessionData(file, count, problem, options);
  return count;
}

function checkSessionData(landed: string, records: number, problem: (file: string, what: string) => void, options: VerifyOptions): void {
  const sessionData = path.join(path.dirname(landed), sessionDataName(path.basename(landed)));
  if (!fs.existsSync(sessionData)) {
    problem(landed, `its .sd is missing (expected ${path.basename(sessionData)}); the next collect derives it`);
    return;
  }
  let dialect = '';
  try {
    let rows = 0;
    for (const entry of readSessionData(sessionData)) {
      if (entry.type === 'header') {
        dialect = entry.header.dialect;
        const digest = digestOfFile(landed);
        if (entry.header.of !== path.basename(landed)) problem(sessionData, `its header names ${entry.header.of}, not ${path.basename(landed)}`);
        if (entry.header.of_sha !== digest) problem(sessionData, `it was derived from other bytes than its landed file's (expected of_sha ${digest}, found ${entry.header.of_sha})`);
        continue;
      }
      rows++;
      if (entry.row.row !== rows) problem(sessionData, `row ${rows} is numbered ${entry.row.row}`);
    }
    if (rows !== records) problem(sessionData, `it has ${rows} rows for ${records} landed records (expected one row per record)`);
  } catch (error) {
    problem(sessionData, (error as Error).message.replace(`${sessionData}: `, ''));
    return;
  }
  if (!options.deep) return;
  const converter = options.converterFor?.(dialect);
  if (!converter) {
    problem(sessionData, `no converter for dialect ${dialect}, so it cannot be derived again`);
    return;
  }
  // Derived again beside a copy of the landed file, then compared as bytes.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sessionizer-verify-'));
  try {
    const copy = path.join(scratch, path.basename(landed));
    fs.copyFileSync(landed, copy);
    deriveSessionData(copy, converter);
    if (!fs.readFileSync(path.join(scratch, path.basename(sessionData))).equals(fs.readFileSync(sessionData))) {
      problem(sessionData, 'deriving it again from its landed file gives different bytes');
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
