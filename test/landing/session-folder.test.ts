import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionLockedError } from '../../src/landing/lock.ts';
import { SessionFolder, storedSessions } from '../../src/landing/session-folder.ts';
import { temporaryFolder } from '../helpers.ts';

const main = { type: 'stream', stream: 'main' } as const;
const run = { type: 'run', run: 'wf_1' } as const;

describe("a session's folder in the storage zone", () => {
  it('says where its state, cursors and landed files are, as the storage layout names them', () => {
    const data = temporaryFolder();
    const folder = new SessionFolder(data, 's1');
    expect(folder.path).toBe(path.join(data, 's1'));
    expect(folder.stateFile).toBe(path.join(data, 's1', 'session.state'));
    expect(folder.cursorFile(main, 'transcript')).toBe(path.join(data, 's1', 'streams', 'main', 'transcript.cursor'));
    expect(folder.cursorFile(run, 'journal')).toBe(path.join(data, 's1', 'runs', 'wf_1', 'journal.cursor'));
    expect(folder.cursorPlace(main, 'transcript')).toBe('streams/main/transcript.cursor');
    expect(folder.landedFile(main, 'transcript', new Date(Date.UTC(2026, 7, 31, 9, 12, 4, 481)), 7)).toBe(path.join(data, 's1', 'streams', 'main', 'transcript-20260831T091204.481Z-000007.jsonl'));
  });

  it('lists what it holds once: a cursor written after the first question is the pass\'s own, not one to mark as vanished', () => {
    const data = temporaryFolder();
    const folder = new SessionFolder(data, 's1');
    fs.mkdirSync(path.join(data, 's1', 'streams', 'main'), { recursive: true });
    fs.mkdirSync(path.join(data, 's1', 'streams', 'agent-a1'), { recursive: true });
    fs.writeFileSync(path.join(data, 's1', 'streams', 'main', 'transcript-20260831T091204.481Z-000002.jsonl'), '');
    fs.writeFileSync(path.join(data, 's1', 'streams', 'main', 'transcript.cursor'), '');
    fs.writeFileSync(path.join(data, 's1', 'streams', 'agent-a1', 'transcript.cursor'), '');
    expect(folder.listing.landed.map(({ relative, seq }) => [relative, seq])).toEqual([['streams/main/transcript-20260831T091204.481Z-000002.jsonl', 2]]);
    fs.writeFileSync(path.join(data, 's1', 'streams', 'main', 'other.cursor'), '');
    const visited = new Set([folder.cursorFile(main, 'transcript')]);
    expect([...folder.cursorsBesides(visited)]).toEqual([{ file: path.join(data, 's1', 'streams', 'agent-a1', 'transcript.cursor'), place: 'streams/agent-a1' }]);
  });

  it('has no state until one is written, and its lock keeps a second collector out', () => {
    const data = temporaryFolder();
    const folder = new SessionFolder(data, 's1');
    expect(folder.hasState()).toBe(false);
    expect(folder.isLocked()).toBe(false);
    const lock = folder.lock();
    expect(folder.isLocked()).toBe(true);
    expect(() => new SessionFolder(data, 's1').lock()).toThrow(SessionLockedError);
    lock.release();
    expect(folder.isLocked()).toBe(false);
    fs.writeFileSync(folder.stateFile, 'schema 1\nnext_seq 1\n');
    expect(folder.hasState()).toBe(true);
  });

  it('is removed only when empty', () => {
    const data = temporaryFolder();
    const folder = new SessionFolder(data, 's1');
    fs.mkdirSync(folder.path);
    fs.writeFileSync(path.join(folder.path, 'session.state'), '');
    folder.removeIfEmpty();
    expect(fs.existsSync(folder.path)).toBe(true);
    fs.rmSync(path.join(folder.path, 'session.state'));
    folder.removeIfEmpty();
    expect(fs.existsSync(folder.path)).toBe(false);
    folder.removeIfEmpty();
  });
});

describe('the sessions a storage zone holds', () => {
  it('are the folders at its top with a session state, in order, and none for a zone not made yet', () => {
    const data = temporaryFolder();
    for (const name of ['s2', 's1', '_site-cache', '.hidden']) {
      fs.mkdirSync(path.join(data, name));
      fs.writeFileSync(path.join(data, name, 'session.state'), '');
    }
    fs.mkdirSync(path.join(data, 's3'));
    expect(storedSessions(data)).toEqual(['s1', 's2']);
    expect(storedSessions(path.join(data, 'not-there'))).toEqual([]);
  });
});
