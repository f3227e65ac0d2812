// Landing on a file system that fills up part way: a landing that fails
// takes no sequence number, so the storage zone never has a gap, and the
// next pass, with room again, lands the rest.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { discoverSessions } from '../../src/adapters/claude-code/discover.ts';
import { lockPath, sessionStatePath } from '../../src/landing/layout.ts';
import { lockSession } from '../../src/landing/lock.ts';
import { landedFilesOfSession, readSessionState } from '../../src/landing/session-state.ts';
import { sessionErrors } from '../../src/collection/collect-all.ts';
import { verifyStorage } from '../../src/verify/storage.ts';
import { FIXTURE_AGENTS, FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { collectOnce, copyOfFixtures, temporaryFolder } from '../helpers.ts';
import { describeWhere, tmpfsMissing } from '../requirements.ts';
import { SmallDisk } from '../small-disk.ts';

const session = FIXTURE_SESSIONS.nestedAgents;

function sourceOf(root: string, stream: string): string {
  const found = discoverSessions(root).sessions.find((candidate) => candidate.id === session)!;
  return found.sources.find((source) => source.place.type === 'stream' && source.place.stream === stream && source.kind === 'transcript')!.path;
}

/** `count` copies of the source's lines, appended to it: new records, as a session that goes on writes them. */
function grow(file: string, count: number): void {
  const lines = fs.readFileSync(file);
  fs.appendFileSync(file, Buffer.concat(Array.from({ length: count }, () => lines)));
}

function sequences(data: string): number[] {
  return landedFilesOfSession(data, session).map((file) => file.seq);
}

describeWhere(tmpfsMissing(), 'collect on a full disk', () => {
  let disk: SmallDisk;
  beforeAll(() => {
    disk = new SmallDisk('4m');
  });
  afterAll(() => disk.unmount());

  it('takes no sequence number for a file it could not land, names the file, and lands the rest once there is room', () => {
    const root = copyOfFixtures();
    const data = disk.at('data');
    const only = { include: [session] };
    expect(collectOnce(root, data, only).sessions.flatMap(sessionErrors)).toEqual([]);
    const before = sequences(data);
    // The main transcript grows by more than is left; one child stream by a few lines, which fit.
    const main = sourceOf(root, 'main');
    grow(main, 400);
    grow(sourceOf(root, FIXTURE_AGENTS.nestedOuter), 1);
    expect(fs.statSync(main).size).toBeGreaterThan(1 << 20);
    disk.fill(256 << 10);
    const full = collectOnce(root, data, only);
    const errors = full.sessions.flatMap(sessionErrors);
    expect(errors).toEqual([expect.stringMatching(new RegExp(`^${session} [^ ]+${session}\\.jsonl: ${data}/${session}/streams/main/transcript-[^ ]+\\.jsonl: could not be written: no space is left on its file system \\(ENOSPC\\)`))]);
    // What did land is numbered on from the last file, with no gap, and the state counts no more.
    const landed = sequences(data);
    expect(landed.length).toBe(before.length + 1);
    expect(landed).toEqual(landed.map((_, index) => index + 1));
    expect(readSessionState(data, session).nextSeq).toBe(landed.length + 1);
    expect(fs.readFileSync(sessionStatePath(data, session), 'utf8')).toContain(`next_seq ${landed.length + 1}\n`);
    expect(verifyStorage(data).problems).toEqual([]);
    // Nothing half-written is left behind.
    expect(fs.readdirSync(data, { recursive: true }).filter((name) => String(name).endsWith('.tmp'))).toEqual([]);

    disk.makeRoom();
    expect(collectOnce(root, data, only).sessions.flatMap(sessionErrors)).toEqual([]);
    const after = sequences(data);
    expect(after.length).toBeGreaterThan(landed.length);
    expect(after).toEqual(after.map((_, index) => index + 1));
    expect(verifyStorage(data).problems).toEqual([]);
  });

  it('leaves no lock it could not write, which would hold the session for ever', () => {
    const data = disk.at('locks');
    fs.mkdirSync(path.join(data, 's1'), { recursive: true });
    disk.fill(0);
    try {
      expect(() => lockSession(data, 's1')).toThrow(`${lockPath(data, 's1')}: could not be written: no space is left on its file system (ENOSPC)`);
      expect(fs.readdirSync(path.join(data, 's1'))).toEqual([]);
    } finally {
      disk.makeRoom();
    }
    lockSession(data, 's1').release();
  });
});

it('takes back a counter that a failed landing left past the landed files, and never one a cursor names', () => {
  const root = copyOfFixtures();
  const data = temporaryFolder();
  const only = { include: [session] };
  collectOnce(root, data, only);
  const landed = sequences(data).length;
  // As a landing that failed left the state: a number taken and never landed.
  const state = sessionStatePath(data, session);
  fs.writeFileSync(state, fs.readFileSync(state, 'utf8').replace(/next_seq \d+/, `next_seq ${landed + 3}`));
  grow(sourceOf(root, 'main'), 1);
  expect(collectOnce(root, data, only).sessions.flatMap(sessionErrors)).toEqual([]);
  expect(sequences(data)).toEqual(Array.from({ length: landed + 1 }, (_, index) => index + 1));
  expect(verifyStorage(data).problems).toEqual([]);
  // The last landed file removed by hand: its cursor names it, so its number is not used again.
  const last = landedFilesOfSession(data, session).at(-1)!;
  fs.rmSync(last.path);
  fs.rmSync(last.path.replace(/\.jsonl$/, '.sd'));
  grow(sourceOf(root, 'main'), 1);
  collectOnce(root, data, only);
  expect(sequences(data).at(-1)).toBe(landed + 2);
  expect(path.basename(landedFilesOfSession(data, session).at(-1)!.path)).not.toBe(path.basename(last.path));
});
