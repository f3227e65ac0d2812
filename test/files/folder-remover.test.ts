// The thread that removes the earlier export: it removes a whole folder,
// writes the markers that settle the records of stamps once the folder is
// gone (a removed hard link changes the change time of the file it shared),
// says why when a folder cannot be removed, and never holds the process open
// while it has nothing to remove.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderRemover } from '../../src/files/folder-remover.ts';
import { compareStamps, settledTime, stampOf } from '../../src/files/file-stamp.ts';
import { temporaryFolder } from '../helpers.ts';

describe('the folder remover', () => {
  it('removes a folder whole, then writes the markers whose change time settles what the removal changed', async () => {
    const folder = temporaryFolder();
    const kept = path.join(folder, 'kept');
    fs.writeFileSync(kept, 'a page the next export keeps');
    const earlier = path.join(folder, 'earlier');
    fs.mkdirSync(path.join(earlier, 'site', 'c'), { recursive: true });
    fs.writeFileSync(path.join(earlier, 'site', 'index.html'), 'index');
    fs.linkSync(kept, path.join(earlier, 'site', 'c', 'page.html'));
    const before = stampOf(kept);
    // The change time moves with the link count only if the clock has moved on.
    await new Promise((resolve) => setTimeout(resolve, 20));

    const marker = path.join(folder, 'record.settled');
    const remover = new FolderRemover();
    try {
      expect(await remover.remove(earlier, [marker])).toEqual({ removed: true });
    } finally {
      remover.close();
    }
    expect(fs.existsSync(earlier)).toBe(false);
    const settled = settledTime(marker);
    expect(settled).toBeGreaterThanOrEqual(BigInt(stampOf(kept)!.changed));
    expect(compareStamps(stampOf(kept), before)).toBe('change time only');
    expect(compareStamps(stampOf(kept), before, settled)).toBe('same');
    // A change after the marker is one the removal did not make.
    await new Promise((resolve) => setTimeout(resolve, 20));
    fs.chmodSync(kept, 0o600);
    expect(compareStamps(stampOf(kept), before, settled)).toBe('change time only');
  });

  it('removes a symbolic link, given or inside, and never what it names', async () => {
    const folder = temporaryFolder();
    const elsewhere = path.join(folder, 'elsewhere');
    fs.mkdirSync(path.join(elsewhere, 'deep'), { recursive: true });
    fs.writeFileSync(path.join(elsewhere, 'deep', 'not ours.txt'), 'kept');
    const earlier = path.join(folder, 'earlier');
    fs.mkdirSync(path.join(earlier, 'site'), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(earlier, 'site', 'a link'));
    fs.symlinkSync(path.join(elsewhere, 'deep', 'not ours.txt'), path.join(earlier, 'a file link'));
    const named = path.join(folder, 'named through a link');
    fs.symlinkSync(elsewhere, named);

    const remover = new FolderRemover();
    try {
      expect(await remover.remove(earlier)).toEqual({ removed: true });
      expect(await remover.remove(named)).toEqual({ removed: true });
    } finally {
      remover.close();
    }
    expect(fs.existsSync(earlier)).toBe(false);
    expect(fs.existsSync(named)).toBe(false);
    expect(fs.readFileSync(path.join(elsewhere, 'deep', 'not ours.txt'), 'utf8')).toBe('kept');
  });

  it('says why a folder could not be removed or its markers not written, and once closed, that it no longer removes', async () => {
    const folder = temporaryFolder();
    const file = path.join(folder, 'a file');
    fs.writeFileSync(file, 'not a folder');
    const remover = new FolderRemover();
    const marker = path.join(folder, 'record.settled');
    const removal = await remover.remove(path.join(file, 'inside'), [marker]);
    expect(removal.removed).toBe(false);
    expect(removal.failure).toContain('ENOTDIR');
    // A folder not removed settles nothing.
    expect(fs.existsSync(marker)).toBe(false);
    const unwritable = await remover.remove(path.join(folder, 'no such folder'), [path.join(file, 'inside', 'record.settled')]);
    expect(unwritable.removed).toBe(true);
    expect(unwritable.failure).toContain('ENOTDIR');
    remover.close();
    expect(await remover.remove(folder)).toEqual({ removed: false, failure: 'the remover was closed' });
    expect(fs.existsSync(file)).toBe(true);
  });

  it('lets the process end when it has nothing to remove, and not before it is done', () => {
    const folder = temporaryFolder();
    fs.mkdirSync(path.join(folder, 'earlier', 'deep'), { recursive: true });
    for (let index = 0; index < 200; index++) fs.writeFileSync(path.join(folder, 'earlier', 'deep', `${index}.html`), 'page');
    const module = new URL('../../src/files/folder-remover.ts', import.meta.url).href;
    const script = `
      import { FolderRemover } from ${JSON.stringify(module)};
      new FolderRemover();
      const busy = new FolderRemover();
      busy.remove(${JSON.stringify(path.join(folder, 'earlier'))}).then(({ removed, failure }) => console.log(failure ?? (removed ? 'removed' : 'not removed')));
    `;
    // The process holds nothing else open: it ends once the removal has said it is done.
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], { encoding: 'utf8', timeout: 20_000 });
    expect([run.status, run.stdout.trim()]).toEqual([0, 'removed']);
    expect(fs.existsSync(path.join(folder, 'earlier'))).toBe(false);
  });
});
