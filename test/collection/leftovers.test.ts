// What a process of this tool that died leaves (temporary files named for its
// process id) never breaks the next run: verify notes it, and the next
// collect or parse removes it once its writer has ended. A writer still
// running keeps its files.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { verifyStorage } from '../../src/verify/storage.ts';
import { collectOnce, copyOfFixtures, endedPid, temporaryFolder } from '../helpers.ts';

const running: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

/** The pid of another process that is still running. */
function runningPid(): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
  running.push(child);
  return child.pid!;
}

function plant(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, 'half written', { mode: 0o444 });
  return file;
}

/**
 * Starts a process that begins writing `target` as the tool writes every
 * file (atomic-file.ts), and is killed with SIGKILL before it renames it into
 * place; returns the temporary file it left.
 */
function killedWhileWriting(target: string): string {
  const module = new URL('../../src/files/atomic-file.ts', import.meta.url).href;
  const script = `import { PendingFile } from ${JSON.stringify(module)};
const pending = new PendingFile(${JSON.stringify(target)}, { mode: 0o444, durability: 'replaced' });
pending.write('half of it');
pending.seal();
process.stdout.write(pending.temporary);
process.kill(process.pid, 'SIGKILL');`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.signal).toBe('SIGKILL');
  expect(fs.existsSync(child.stdout)).toBe(true);
  return child.stdout;
}

describe('what a dead process left in the storage zone', () => {
  it('is a note to verify, and the next collect removes it, leaving what a running writer has', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const session = FIXTURE_SESSIONS.rewind;
    const dead = endedPid();
    const alive = runningPid();
    const stream = path.join(data, session, 'streams', 'main');
    const leftIndex = plant(path.join(data, session, `.session.index.${dead}-0.tmp`));
    const leftLanded = plant(path.join(stream, `.transcript-20260101T000000.000Z-000009.jsonl.${dead}-1.tmp`));
    const beingWritten = plant(path.join(stream, `.transcript-20260101T000000.000Z-000010.jsonl.${alive}-0.tmp`));

    const verified = verifyStorage(data);
    expect(verified.problems).toEqual([]);
    expect(verified.notes.map((note) => note.path).sort()).toEqual([leftIndex, leftLanded, beingWritten].map((file) => path.relative(data, file)).sort());
    expect(verified.notes[0]!.what).toMatch(/^a temporary file left by an interrupted write; /);

    // Nothing new to land: the leftovers alone send the pass to the session.
    collectOnce(root, data);
    expect([fs.existsSync(leftIndex), fs.existsSync(leftLanded), fs.existsSync(beingWritten)]).toEqual([false, false, true]);
  });

  it('is removed by the next parse of the session: its index, from a process killed while it wrote it, and its chain', () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    const session = FIXTURE_SESSIONS.rewind;
    const dead = endedPid();
    const leftIndex = killedWhileWriting(path.join(data, session, 'session.index'));
    const leftRound = plant(path.join(data, '_conversations', session, 'rounds', `.000001.sf.${dead}-0.tmp`));
    expect(verifyStorage(data).problems).toEqual([]);
    expect(parseSession(data, session).round).toBeDefined();
    expect([fs.existsSync(leftIndex), fs.existsSync(leftRound)]).toEqual([false, false]);
  });
});
