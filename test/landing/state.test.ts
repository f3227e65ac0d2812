import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCursor, writeCursor, type AppendCursor, type SnapshotCursor } from '../../src/landing/cursor.ts';
import { formatState, parseState } from '../../src/landing/state-text.ts';
import { lockSession, SessionLockedError } from '../../src/landing/lock.ts';
import { lockPath } from '../../src/landing/layout.ts';
import { temporaryFolder } from '../helpers.ts';
import { spawn } from 'node:child_process';
import os from 'node:os';

describe('state files', () => {
  it('round-trip values with spaces, backslashes and line breaks', () => {
    const values = parseState(formatState([['conflict', 'a b\\c\nd'], ['offset', 5]]));
    expect(values.get('conflict')).toBe('a b\\c\nd');
    expect(values.get('offset')).toBe('5');
  });

  it('round-trip both cursor kinds', () => {
    const folder = temporaryFolder();
    const append: AppendCursor = { type: 'append', source: 'p/s.jsonl', device: '2049', inode: '18446744073709551615', offset: 10, ord: 2, lastRecord: 'u-2', prefixSha256: 'ab', lastSeq: 4, sizeAtScan: 12, state: 'active' };
    writeCursor(path.join(folder, 'transcript.cursor'), append, new Date(0));
    expect(readCursor(path.join(folder, 'transcript.cursor'))).toEqual({ ...append, conflict: undefined });
    const snapshot: SnapshotCursor = { type: 'snapshot', source: 'p/s/workflows/wf_x.json', contentSha256: 'cd', size: 9, lastSeq: 5, state: 'conflict', conflict: 'changed\nbadly' };
    writeCursor(path.join(folder, 'manifest.cursor'), snapshot, new Date(0));
    expect(readCursor(path.join(folder, 'manifest.cursor'))).toEqual(snapshot);
    expect(readCursor(path.join(folder, 'none.cursor'))).toBeUndefined();
  });

  it('name the file and the key of a damaged cursor', () => {
    const file = path.join(temporaryFolder(), 'transcript.cursor');
    fs.writeFileSync(file, 'schema 1\nkind append\noffset ten\nlast_seq 1\nstate active\n');
    expect(() => readCursor(file)).toThrow(`${file}: "offset" is not a whole number: ten`);
  });
});

describe('the session lock', () => {
  it('keeps a second collector out while the first holds it', () => {
    const data = temporaryFolder();
    const lock = lockSession(data, 's1');
    // Held by this very process: a second attempt in the same process is refused too.
    expect(() => lockSession(data, 's1')).toThrow(SessionLockedError);
    lock.release();
    lockSession(data, 's1').release();
  });

  it('respects a lock held by a live process and takes over one whose process has ended', async () => {
    const data = temporaryFolder();
    fs.mkdirSync(path.join(data, 's2'));
    const sleeper = spawn('sleep', ['30']);
    try {
      fs.writeFileSync(lockPath(data, 's2'), `pid ${sleeper.pid} on ${os.hostname()}\n`);
      expect(() => lockSession(data, 's2')).toThrow(`session s2 is being collected by another collector (pid ${sleeper.pid} on ${os.hostname()}); it was left alone`);
    } finally {
      sleeper.kill();
      await new Promise((resolve) => sleeper.once('exit', resolve));
    }
    // The holder is gone now: the lock is stale and is taken over.
    lockSession(data, 's2').release();
    expect(fs.existsSync(lockPath(data, 's2'))).toBe(false);
  });
});
