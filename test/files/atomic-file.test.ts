import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { overwriteInPlace, replaceWithoutFlush, writeOnce } from '../../src/files/atomic-file.ts';
import { temporaryFolder } from '../helpers.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a state file written over where it is', () => {
  it('keeps its file and leaves nothing of a longer content', () => {
    const file = path.join(temporaryFolder(), 'session.state');
    fs.writeFileSync(file, `schema 1\n# ${'x'.repeat(200)}\n`);
    const inode = fs.statSync(file).ino;
    overwriteInPlace(file, 'schema 1\nlast_scan 2026-12-03T00:00:00.000Z\n');
    expect(fs.readFileSync(file, 'utf8')).toBe('schema 1\nlast_scan 2026-12-03T00:00:00.000Z\n');
    expect(fs.statSync(file).ino).toBe(inode);
  });

  it('is made whole when it is not there, or when it cannot be opened for writing', () => {
    const folder = temporaryFolder();
    const missing = path.join(folder, 'new.state');
    overwriteInPlace(missing, 'schema 1\n');
    expect(fs.readFileSync(missing, 'utf8')).toBe('schema 1\n');

    // A read-only file refuses to be opened for writing, except to root.
    const readOnly = path.join(folder, 'read-only.state');
    fs.writeFileSync(readOnly, 'old\n', { mode: 0o444 });
    const inode = fs.statSync(readOnly).ino;
    const open = fs.openSync;
    vi.spyOn(fs, 'openSync').mockImplementation((file, ...rest) => {
      if (file === readOnly && rest[0] === fs.constants.O_WRONLY) throw Object.assign(new Error(`EACCES: permission denied, open '${readOnly}'`), { code: 'EACCES' });
      return open(file, ...(rest as [fs.OpenMode]));
    });
    overwriteInPlace(readOnly, 'new\n');
    expect(fs.readFileSync(readOnly, 'utf8')).toBe('new\n');
    expect(fs.statSync(readOnly).ino).not.toBe(inode);
  });
});

describe('a whole file written from its pieces', () => {
  it('writes them in turn through the staging buffer, never joined into one write', () => {
    const folder = temporaryFolder();
    const line = (index: number): string => `${JSON.stringify({ index, text: 'é'.repeat(300) })}\n`;
    function* lines(): Generator<string> {
      for (let index = 0; index < 4000; index++) yield line(index);
    }
    const expected = Array.from({ length: 4000 }, (_, index) => line(index)).join('');
    const write = vi.spyOn(fs, 'writeSync');
    const state = path.join(folder, 'state');
    replaceWithoutFlush(state, lines());
    const once = path.join(folder, 'once');
    writeOnce(once, [...lines()]);
    expect(fs.readFileSync(state, 'utf8')).toBe(expected);
    expect(fs.readFileSync(once, 'utf8')).toBe(expected);
    expect(Buffer.byteLength(expected)).toBeGreaterThan(2 << 20);
    const largest = Math.max(...write.mock.calls.map(([, bytes, offset]) => (bytes as unknown as Buffer).length - ((offset as number | undefined) ?? 0)));
    expect(largest).toBeLessThanOrEqual(64 << 10);
  });
});
