// Parse on every core: the same rounds, byte for byte, as one thread makes,
// each session's outcome in the order asked, and a session that cannot be
// parsed named without stopping the others.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { storedSessions } from '../../src/landing/session-folder.ts';
import { parseSessionsOnCores } from '../../src/parse/parallel.ts';
import { workerModule } from '../../src/cores/work-on-cores.ts';
import { roundFiles } from '../../src/session-flow/chain.ts';
import { collectOnce, copyOfFixtures, filesOf, temporaryFolder } from '../helpers.ts';

function collected(): string {
  const data = temporaryFolder();
  collectOnce(copyOfFixtures(), data);
  return data;
}

describe('parse on every core', () => {
  it('appends the rounds one thread appends, reports every session in the order asked, and then finds nothing to do', { timeout: 60_000 }, async () => {
    const alone = collected();
    // The same landed files, whose names the rounds hold.
    const together = temporaryFolder();
    fs.cpSync(alone, together, { recursive: true });
    const sessions = storedSessions(alone);
    const one = await parseSessionsOnCores(alone, sessions, { threads: 1 });
    const reported: string[] = [];
    const two = await parseSessionsOnCores(together, sessions, { threads: 2, parallelFromBytes: 0, onSession: (outcome) => reported.push(outcome.session) });
    expect(two.map((outcome) => outcome.session)).toEqual(sessions);
    expect(reported.sort()).toEqual([...sessions].sort());
    expect(two).toEqual(one);
    // One round a session, and a second for the one whose records a summary in another session's file names, parsed again with it.
    const again = FIXTURE_SESSIONS.summarisedElsewhere;
    expect(two.every((outcome) => outcome.round === (outcome.session === again ? 2 : 1) && outcome.failure === undefined)).toBe(true);
    // Rounds hold no clock, so the two chains are the same bytes.
    const rounds = (data: string) => new Map([...filesOf(path.join(data, '_conversations'))].filter(([file]) => file.endsWith('.sf')));
    expect(rounds(together).size).toBe(sessions.length + 1);
    expect(rounds(together)).toEqual(rounds(alone));
    expect((await parseSessionsOnCores(together, sessions, { threads: 2, parallelFromBytes: 0 })).every((outcome) => outcome.unchanged)).toBe(true);
  });

  it('leaves every session to the workers while they work: the calling thread’s heap is the rest of the command’s', { timeout: 60_000 }, async () => {
    const data = collected();
    const sessions = storedSessions(data);
    const worker = workerModule('idle-parse-worker', new URL('./idle-parse-worker.mjs', import.meta.url));
    const outcomes = await parseSessionsOnCores(data, sessions, { threads: 2, parallelFromBytes: 0, worker });
    expect(outcomes.every((outcome) => outcome.unchanged)).toBe(true);
    // The workers appended no round; the calling thread would have.
    expect(sessions.filter((session) => roundFiles(data, session).length > 0)).toEqual([]);
  });

  it('parses on the calling thread each session a worker took and never finished, as one that ran out of its bounded memory', { timeout: 60_000 }, async () => {
    const data = collected();
    const sessions = storedSessions(data);
    const worker = workerModule('stopping-parse-worker', new URL('./stopping-parse-worker.mjs', import.meta.url));
    const outcomes = await parseSessionsOnCores(data, sessions, { threads: 2, parallelFromBytes: 0, worker });
    expect(outcomes.filter((outcome) => outcome.failure !== undefined)).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.round !== undefined)).toHaveLength(sessions.length);
  });

  it('names a session it cannot parse and parses the others', { timeout: 60_000 }, async () => {
    const data = collected();
    const sessions = storedSessions(data);
    // A .sd that is not one: its session cannot be indexed.
    const broken = FIXTURE_SESSIONS.rewind;
    const sd = filesOfSession(data, broken).find((file) => file.endsWith('.sd'))!;
    fs.chmodSync(sd, 0o644);
    fs.writeFileSync(sd, 'not a .sd\n');
    const outcomes = await parseSessionsOnCores(data, sessions, { threads: 2, parallelFromBytes: 0 });
    const failed = outcomes.filter((outcome) => outcome.failure !== undefined);
    expect(failed.map((outcome) => outcome.session)).toEqual([broken]);
    expect(failed[0]!.failure!.message).toContain(sd);
    expect(outcomes.filter((outcome) => outcome.round !== undefined)).toHaveLength(sessions.length - 1);
  });
});

function filesOfSession(data: string, session: string): string[] {
  return [...filesOf(path.join(data, session)).keys()].map((file) => path.join(data, session, file));
}
