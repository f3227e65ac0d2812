import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { overwriteInPlace } from '../../src/files/atomic-file.ts';
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
