import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONVERTERS } from '../../src/adapters/dialects.ts';
import { sessionStatePath } from '../../src/landing/layout.ts';
import { readSessionState } from '../../src/landing/session-state.ts';
import { readCursor } from '../../src/landing/cursor.ts';
import { verifyStorage } from '../../src/verify/storage.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { collectOnce, copyOfFixtures, landedOf, temporaryFolder } from '../helpers.ts';

// A crash between the two flush rounds of a batch: the landed files are on
// the disk under their names, but no cursor, `.sd` or session.state was
// placed. Failing the first replacement file stages exactly that state.
const crash = vi.hoisted(() => ({ on: false }));
vi.mock('../../src/files/atomic-file.ts', async (original) => {
  const real = await original<typeof import('../../src/files/atomic-file.ts')>();
  return {
    ...real,
    stagedReplacement: (target: string, content: string) => {
      if (crash.on) throw new Error('the process died here');
      return real.stagedReplacement(target, content);
    },
  };
});

afterEach(() => {
  crash.on = false;
});

describe('committing a session in one batch', () => {
  it('commits no cursor when the batch stops after its landed files are durable, and the next pass lands the same records again', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    const session = FIXTURE_SESSIONS.compaction;
    crash.on = true;
    const first = collectOnce(root, data, { include: [session] });
    expect(first.sessions[0]!.unreadable.join('\n')).toMatch(/could not be committed: the process died here/);
    const stranded = landedOf(data, session);
    expect(stranded.length).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(data, session, 'streams/main/transcript.cursor'))).toBe(false);
    expect(fs.existsSync(sessionStatePath(data, session))).toBe(false);
    // No temporary file is left where a later pass could mistake it for data.
    const leftovers = fs.readdirSync(path.join(data, session), { recursive: true }).map(String).filter((name) => name.endsWith('.tmp'));
    expect(leftovers).toEqual([]);

    crash.on = false;
    collectOnce(root, data, { include: [session] });
    const landed = landedOf(data, session);
    // The landed files of the stopped batch stay, and the same records land
    // again after them with new sequence numbers: at-least-once, no number reused.
    expect(landed.map((file) => file.header.seq)).toEqual(landed.map((_, index) => index + 1));
    expect(landed.length).toBe(stranded.length * 2);
    const payloads = (files: typeof landed) => files.flatMap((file) => file.records.map((record) => record.payload.toString('base64')));
    expect(payloads(landed.slice(stranded.length))).toEqual(payloads(stranded));
    expect(readCursor(path.join(data, session, 'streams/main/transcript.cursor'))!.lastSeq).toBe(landed.filter((file) => file.header.src === landed[0]!.header.src).at(-1)!.header.seq);
    expect(readSessionState(data, session).nextSeq).toBe(landed.length + 1);
    // Every landed file has its `.sd` (those of the stopped batch mended), and it matches.
    const report = verifyStorage(data, { deep: true, converters: CONVERTERS });
    expect(report.problems).toEqual([]);
  });

  it('reports every session of a failed shared batch, leaves none of them locked, and the next pass lands them all', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    crash.on = true;
    const first = collectOnce(root, data);
    const failed = first.sessions.filter((session) => session.unreadable.some((message) => /could not be committed/.test(message)));
    // The fixtures fit in one batch, so every session with something to land
    // was waiting on it; the one whose only file is empty had nothing in it.
    expect(failed.map((session) => session.session).sort()).toEqual(first.sessions.map((session) => session.session).filter((session) => session !== FIXTURE_SESSIONS.empty).sort());
    expect(first.sessions.find((session) => session.session === FIXTURE_SESSIONS.empty)!.sources.map((source) => source.status)).toEqual(['empty']);
    const names = fs.readdirSync(data, { recursive: true }).map(String);
    expect(names.filter((name) => name.endsWith('.cursor') || name.endsWith('.lock') || name.endsWith('session.state'))).toEqual([]);

    crash.on = false;
    const second = collectOnce(root, data);
    expect(second.sessions.flatMap((session) => session.unreadable)).toEqual([]);
    expect(verifyStorage(data, { deep: true, converters: CONVERTERS }).problems).toEqual([]);
    expect(collectOnce(root, data).sessions.flatMap((session) => session.sources.flatMap((source) => source.landed))).toEqual([]);
  });

  it('commits many batches in order, and a failure while one is in flight drops it and the next, and lands them on the next pass', { timeout: 60_000 }, () => {
    // More sessions than one batch holds (64 landed files), so that one batch
    // flushes in the background while the next one lands.
    const root = path.join(temporaryFolder(), 'projects');
    fs.mkdirSync(path.join(root, 'p'), { recursive: true });
    const sessions = Array.from({ length: 150 }, (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`);
    for (const session of sessions) {
      fs.writeFileSync(path.join(root, 'p', `${session}.jsonl`), `${JSON.stringify({ type: 'user', uuid: `u-${session}`, sessionId: session, message: { role: 'user', content: 'hi' } })}\n`);
    }
    const data = temporaryFolder();
    crash.on = true;
    const first = collectOnce(root, data);
    expect(first.sessions.length).toBe(sessions.length);
    expect(first.sessions.every((session) => session.unreadable.some((message) => /could not be committed/.test(message)))).toBe(true);
    const names = fs.readdirSync(data, { recursive: true }).map(String);
    expect(names.filter((name) => name.endsWith('.cursor') || name.endsWith('.sd') || name.endsWith('.tmp') || name.endsWith('collect.lock'))).toEqual([]);

    crash.on = false;
    const second = collectOnce(root, data);
    expect(second.sessions.flatMap((session) => session.unreadable)).toEqual([]);
    for (const session of sessions) {
      expect(readCursor(path.join(data, session, 'streams/main/transcript.cursor'))!.state).toBe('active');
      expect(landedOf(data, session).at(-1)!.records.map((record) => record.payload.toString())).toEqual([fs.readFileSync(path.join(root, 'p', `${session}.jsonl`), 'utf8').trimEnd()]);
    }
    expect(verifyStorage(data, { deep: true, converters: CONVERTERS }).problems).toEqual([]);
    expect(collectOnce(root, data).sessions.flatMap((session) => session.sources.flatMap((source) => source.landed))).toEqual([]);
  });
});
