// The rule of what --data may be (export/data-folder.ts, docs/formats.md),
// case by case; test/cli/data-folder.test.ts runs it through every command.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimDataFolder, dataFolderRefusal } from '../../src/export/data-folder.ts';
import { temporaryFolder } from '../helpers.ts';

function sessionFolder(data: string, name: string, entries: string[]): void {
  fs.mkdirSync(path.join(data, name, 'streams', 'main'), { recursive: true });
  for (const entry of entries) fs.writeFileSync(path.join(data, name, entry), '');
}

describe('what --data may be', () => {
  it('refuses an export made before the export marker, and every folder under it, by its manifest, root digest and bundle together', () => {
    const work = temporaryFolder();
    const earlier = path.join(work, 'earlier');
    fs.mkdirSync(path.join(earlier, 'bundle', '_conversations'), { recursive: true });
    fs.writeFileSync(path.join(earlier, 'manifest.json'), '{}');
    fs.writeFileSync(path.join(earlier, 'root-digest.txt'), 'x\n');
    expect(dataFolderRefusal(earlier, 'read')).toMatch(/^it is an export folder \(it holds manifest\.json\); /);
    expect(dataFolderRefusal(path.join(earlier, 'bundle'), 'read')).toMatch(new RegExp(`^it is inside the export folder ${earlier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(which holds manifest\\.json\\); `));
    expect(dataFolderRefusal(path.join(earlier, 'bundle', 'not-yet', 'there'), 'read')).toMatch(/^it is inside the export folder /);
    // A manifest alone is no export: a data folder may sit beside such a file.
    const beside = path.join(work, 'beside');
    fs.mkdirSync(path.join(beside, 'data'), { recursive: true });
    fs.writeFileSync(path.join(beside, 'manifest.json'), '{}');
    expect(dataFolderRefusal(path.join(beside, 'data'), 'read')).toBeUndefined();
  });

  it('takes a folder made before the marker by its layout, with a session state somewhere, and refuses one without any', () => {
    const data = temporaryFolder();
    sessionFolder(data, 'a', ['session.state']);
    sessionFolder(data, 'b', ['collect.lock']);
    fs.mkdirSync(path.join(data, '_conversations'));
    fs.writeFileSync(path.join(data, `.session.state.${process.pid}-0.tmp`), '');
    expect(dataFolderRefusal(data, 'read')).toBeUndefined();
    fs.rmSync(path.join(data, 'a', 'session.state'));
    expect(dataFolderRefusal(data, 'read')).toMatch(/^it has the layout of a data folder but no session state in any session folder/);
    // Only the tool's own entries: the caches of an export that exported nothing.
    const caches = temporaryFolder();
    fs.mkdirSync(path.join(caches, '_site-cache'));
    expect(dataFolderRefusal(caches, 'read')).toBeUndefined();
  });

  it('marks a folder only for a command that writes into it, and creates one only for a command that lands into it', () => {
    const work = temporaryFolder();
    const made = path.join(work, 'made');
    expect(claimDataFolder(made, 'write')).toBeUndefined();
    expect(fs.existsSync(made)).toBe(false);
    expect(claimDataFolder(made, 'create')).toBeUndefined();
    expect(fs.readFileSync(path.join(made, '.sessionizer-data'), 'utf8')).toMatch(/^sessionizer-data\/1\n/);
    const before = temporaryFolder();
    sessionFolder(before, 's', ['session.state']);
    expect(claimDataFolder(before, 'read')).toBeUndefined();
    expect(fs.existsSync(path.join(before, '.sessionizer-data'))).toBe(false);
    expect(claimDataFolder(before, 'write')).toBeUndefined();
    expect(fs.existsSync(path.join(before, '.sessionizer-data'))).toBe(true);
    const file = path.join(work, 'file');
    fs.writeFileSync(file, '');
    expect(claimDataFolder(path.join(file, 'data'), 'create')).toMatch(/^it lies under .*file, which is not a folder; /);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
  });
});
