// What `export` may write and what it holds (docs/export-folder.md): it never
// deletes or replaces what it did not write, one export at a time per data
// folder, and by default the conversations of the sessions under its source.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeManifest } from '../../src/bundle/manifest.ts';
import { copyOfFixtures, endedPid, filesOf, temporaryFolder } from '../helpers.ts';
import { LAUNCHER, sessionizer } from './launcher.ts';

/** A source folder holding only the named project folders of the fixtures. */
function sourceWith(projects: string[]): string {
  const all = copyOfFixtures();
  for (const name of fs.readdirSync(all)) if (!projects.includes(name)) fs.rmSync(path.join(all, name), { recursive: true });
  return all;
}

describe('export --out, --archive and --data never delete or replace what the tool did not write', () => {
  it('refuses, with exit 2 and one line, an --out that is, holds or lies inside the source or the data folder, and touches nothing', () => {
    const work = temporaryFolder();
    const source = sourceWith(['-home-user-fixtures-rewind']);
    const data = path.join(work, 'data');
    expect(sessionizer(['collect', '--once', '--source', source, '--data', data]).code).toBe(0);
    const sourceBefore = filesOf(source);
    const dataBefore = filesOf(data);
    fs.symlinkSync(data, path.join(work, 'link-to-data'));
    const cases: [string, RegExp][] = [
      [source, /it is the source/],
      [path.join(source, '-home-user-fixtures-rewind'), /it is inside the source/],
      [path.dirname(source), /it holds the source/],
      [data, /it is the data folder/],
      [path.join(data, 'export'), /it is inside the data folder/],
      [path.join(work, 'link-to-data'), /it is the data folder/],
    ];
    for (const [out, why] of cases) {
      const refused = sessionizer(['export', '--source', source, '--data', data, '--out', out]);
      expect(refused.code, out).toBe(2);
      expect(refused.error, out).toMatch(new RegExp(`^sessionizer export: --out ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${why.source}[^\n]*\n$`));
    }
    // Relative, from inside the source.
    const relative = sessionizer(['export', '--source', '.', '--data', data, '--out', '.'], { cwd: source });
    expect([relative.code, relative.error]).toEqual([2, `sessionizer export: --out ${source}: it is the source (${source}); an export replaces its folder whole, so it goes in a folder of its own\n`]);
    expect(filesOf(source)).toEqual(sourceBefore);
    expect(filesOf(data)).toEqual(dataBefore);
  });

  it('refuses an --out folder with files of anyone else, and replaces an earlier export, one from before the marker too', { timeout: 180_000 }, () => {
    const work = temporaryFolder();
    const source = sourceWith(['-home-user-fixtures-rewind']);
    const data = path.join(work, 'data');
    const mine = path.join(work, 'mine');
    fs.mkdirSync(mine);
    fs.writeFileSync(path.join(mine, 'notes.txt'), 'my notes\n');
    // `.` in a folder with other files.
    const here = sessionizer(['export', '--source', source, '--data', data, '--out', '.'], { cwd: mine });
    expect([here.code, here.error]).toEqual([2, `sessionizer export: --out ${mine}: it is not empty and not an export of this tool (no .sessionizer-export); an export replaces its folder whole; give a new folder, or move these files away\n`]);
    expect(filesOf(mine)).toEqual(new Map([['notes.txt', Buffer.from('my notes\n')]]));

    const out = path.join(work, 'export');
    expect(sessionizer(['export', '--source', source, '--data', data, '--out', out]).code).toBe(0);
    expect(fs.readFileSync(path.join(out, '.sessionizer-export'), 'utf8')).toMatch(/^sessionizer-export\/1\n/);
    expect(sessionizer(['export', '--source', source, '--data', data, '--out', out]).code).toBe(0);
    // A file of someone else's dropped into an earlier export: the export is refused, the file kept.
    fs.writeFileSync(path.join(out, 'bundle', 'mine.txt'), 'mine\n');
    const dropped = sessionizer(['export', '--source', source, '--data', data, '--out', out]);
    expect([dropped.code, dropped.error]).toEqual([2, expect.stringMatching(/: it is an export of this tool, but bundle\/mine\.txt is not in its manifest; /)]);
    expect(fs.readFileSync(path.join(out, 'bundle', 'mine.txt'), 'utf8')).toBe('mine\n');
    fs.rmSync(path.join(out, 'bundle', 'mine.txt'));
    // As the previous version wrote it: no marker, a manifest over everything. Replaced while it verifies whole; refused once a byte differs.
    fs.rmSync(path.join(out, '.sessionizer-export'));
    writeManifest(out);
    expect(sessionizer(['verify', out]).code).toBe(0);
    const site = path.join(out, 'site', 'index.html');
    fs.chmodSync(site, 0o644);
    fs.appendFileSync(site, ' ');
    const edited = sessionizer(['export', '--source', source, '--data', data, '--out', out]);
    expect([edited.code, edited.error]).toEqual([2, expect.stringMatching(/: it has no \.sessionizer-export and does not verify as an earlier export \(site\/index\.html: /)]);
    writeManifest(out);
    expect(sessionizer(['export', '--source', source, '--data', data, '--out', out]).code).toBe(0);
    expect(fs.existsSync(path.join(out, '.sessionizer-export'))).toBe(true);
  });

  it('replaces an --archive only when it is an earlier archive of the tool, and never puts one inside the export', { timeout: 180_000 }, () => {
    const work = temporaryFolder();
    const source = sourceWith(['-home-user-fixtures-rewind']);
    const data = path.join(work, 'data');
    const out = path.join(work, 'export');
    const archive = path.join(work, 'export.tar.zst');
    fs.writeFileSync(archive, 'my own file\n');
    const refused = sessionizer(['export', '--source', source, '--data', data, '--out', out, '--archive', archive]);
    expect([refused.code, refused.error]).toEqual([2, `sessionizer export: --archive ${archive}: it exists and is not an archive this tool wrote (its first entries are not export/ and the export marker); give a new file name, or move it away\n`]);
    expect(fs.readFileSync(archive, 'utf8')).toBe('my own file\n');
    expect(fs.existsSync(out)).toBe(false);
    // A zstd archive of something else is not one either.
    const other = path.join(work, 'other');
    fs.mkdirSync(path.join(other, 'export'), { recursive: true });
    fs.writeFileSync(path.join(other, 'export', 'a.txt'), 'a\n');
    const tarred = path.join(work, 'other.tar.zst');
    expect(spawnSync('tar', ['--zstd', '-cf', tarred, '-C', other, 'export']).status).toBe(0);
    expect(sessionizer(['export', '--source', source, '--data', data, '--out', out, '--archive', tarred]).code).toBe(2);
    const inside = sessionizer(['export', '--source', source, '--data', data, '--out', out, '--archive', path.join(out, 'export.tar.zst')]);
    expect([inside.code, inside.error]).toEqual([2, expect.stringMatching(/--archive .*: it is inside the export folder/)]);

    fs.rmSync(archive);
    expect(sessionizer(['export', '--source', source, '--data', data, '--out', out, '--archive', archive]).code).toBe(0);
    expect(sessionizer(['export', '--source', source, '--data', data, '--out', out, '--archive', archive]).code).toBe(0);
    expect(sessionizer(['verify', archive]).code).toBe(0);
  });

  it('refuses, before anything is read or written, an --archive in a folder that does not exist, with exit 2 and one line', () => {
    const work = temporaryFolder();
    const source = sourceWith(['-home-user-fixtures-rewind']);
    const data = path.join(work, 'data');
    const out = path.join(work, 'export');
    for (const archive of [path.join(work, 'no-such-folder', 'export.tar.zst'), path.join(work, 'no', 'such', 'folder', 'export.tar.zst')]) {
      const refused = sessionizer(['export', '--source', source, '--data', data, '--out', out, '--archive', archive]);
      expect([refused.code, refused.error]).toEqual([2, `sessionizer export: --archive ${archive}: its folder ${path.dirname(archive)} does not exist; make it first, or give a file in a folder that exists\n`]);
    }
    const file = path.join(work, 'a-file');
    fs.writeFileSync(file, 'mine\n');
    const inFile = sessionizer(['export', '--source', source, '--data', data, '--out', out, '--archive', path.join(file, 'export.tar.zst')]);
    expect([inFile.code, inFile.error]).toEqual([2, `sessionizer export: --archive ${path.join(file, 'export.tar.zst')}: ${file} is not a folder; give a file in a folder that exists\n`]);
    expect(fs.readdirSync(work).sort()).toEqual(['a-file']);
  });

  it('refuses a --data folder that holds other things than a storage zone', () => {
    const work = temporaryFolder();
    const source = sourceWith(['-home-user-fixtures-rewind']);
    const home = path.join(work, 'home');
    fs.mkdirSync(path.join(home, 'Documents'), { recursive: true });
    fs.writeFileSync(path.join(home, '.bashrc'), 'alias ll="ls -l"\n');
    for (const command of [['export', '--out', path.join(work, 'export')], ['collect', '--once']]) {
      const refused = sessionizer([...command, '--source', source, '--data', home]);
      expect(refused.code).toBe(2);
      expect(refused.error).toMatch(new RegExp(`^sessionizer ${command[0]}: --data ${home}: it is not empty and not a Sessionizer storage zone \\((\\.bashrc|Documents) is nothing the storage layout holds\\)`));
    }
    expect(filesOf(home)).toEqual(new Map([['.bashrc', Buffer.from('alias ll="ls -l"\n')]]));
    expect(fs.readdirSync(home).sort()).toEqual(['.bashrc', 'Documents']);
  });
});

describe('one export at a time per data folder', () => {
  it('exits 1 naming the export that holds the data folder, and takes over the lock of one that died', { timeout: 180_000 }, () => {
    const work = temporaryFolder();
    const source = sourceWith(['-home-user-fixtures-rewind']);
    const data = path.join(work, 'data');
    const out = path.join(work, 'export');
    fs.mkdirSync(data);
    const lock = path.join(data, '_export.lock');
    // This test's own process stands for an export that is running.
    fs.writeFileSync(lock, `pid ${process.pid} on ${os.hostname()}\n`);
    const held = sessionizer(['export', '--source', source, '--data', data, '--out', out]);
    expect([held.code, held.error]).toEqual([1, `error: the data folder ${data} is in use by another export (pid ${process.pid} on ${os.hostname()}); run this one when it has finished\n`]);
    expect(fs.existsSync(out)).toBe(false);
    // A session folder its collector has made and not yet locked is the
    // running export's, which is named, not a folder of anyone's refused.
    fs.mkdirSync(path.join(data, 'c0ffee00-0000-4000-8000-000000000000'));
    const collecting = sessionizer(['export', '--source', source, '--data', data, '--out', out]);
    expect([collecting.code, collecting.error]).toEqual([1, held.error]);
    fs.rmdirSync(path.join(data, 'c0ffee00-0000-4000-8000-000000000000'));
    const dead = endedPid();
    fs.writeFileSync(lock, `pid ${dead} on ${os.hostname()}\n`);
    // What the dead export left half-written in the data folder goes too.
    const left = path.join(data, '_exports', `.0123456789abcdef.json.${dead}-0.tmp`);
    fs.mkdirSync(path.dirname(left));
    fs.writeFileSync(left, '{');
    const taken = sessionizer(['export', '--source', source, '--data', data, '--out', out]);
    expect(taken.code, taken.error).toBe(0);
    expect(fs.existsSync(lock)).toBe(false);
    expect(fs.existsSync(left)).toBe(false);
  });
});

describe('two exports started at once on one data folder', () => {
  it('run one: the other exits 1 naming it, and the export verifies', { timeout: 180_000 }, async () => {
    const work = temporaryFolder();
    const source = sourceWith(['-home-user-fixtures-rewind', '-home-user-fixtures-retry', '-home-user-fixtures-compaction']);
    const data = path.join(work, 'data');
    const started = ['one', 'two'].map((name) => {
      const child = spawn(process.execPath, [LAUNCHER, 'export', '--source', source, '--data', data, '--out', path.join(work, name)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let error = '';
      child.stderr.on('data', (chunk) => (error += chunk));
      return new Promise<{ code: number | null; error: string; pid: number }>((resolve) => child.on('close', (code) => resolve({ code, error, pid: child.pid! })));
    });
    const [one, two] = await Promise.all(started);
    const [ran, refused] = one!.code === 0 ? [one!, two!] : [two!, one!];
    expect([ran.code, refused.code], refused.error).toEqual([0, 1]);
    expect(refused.error).toMatch(new RegExp(`^error: the data folder ${data} is in use by another export \\(pid ${ran.pid} on `));
    const out = path.join(work, ran === one ? 'one' : 'two');
    expect(sessionizer(['verify', out]).code).toBe(0);
    expect(fs.readdirSync(path.join(out, 'bundle', '_conversations'))).toHaveLength(3);
  });
});

describe('what an export holds', () => {
  it('is the conversations of the sessions under its source, says how many others the data folder holds, and all with --all', { timeout: 180_000 }, () => {
    const work = temporaryFolder();
    const data = path.join(work, 'data');
    const first = sourceWith(['-home-user-fixtures-rewind', '-home-user-fixtures-retry']);
    const second = sourceWith(['-home-user-fixtures-compaction']);
    expect(sessionizer(['collect', '--once', '--source', first, '--data', data]).code).toBe(0);
    const run = (args: string[]) => {
      const result = sessionizer(['export', '--source', second, '--data', data, '--out', path.join(work, 'export'), ...args]);
      expect(result.code, result.error).toBe(0);
      return result;
    };
    const own = JSON.parse(run(['--json']).out) as { conversations: number; other_conversations_in_data: number };
    expect([own.conversations, own.other_conversations_in_data]).toEqual([1, 2]);
    expect(fs.readdirSync(path.join(work, 'export', 'bundle', '_conversations'))).toHaveLength(1);
    expect(run([]).out).toMatch(/^The data folder holds 2 other conversations, not of sessions under this source; --all exports them too\.\n/);
    const all = JSON.parse(run(['--all', '--json']).out) as { conversations: number; other_conversations_in_data: number };
    expect([all.conversations, all.other_conversations_in_data]).toEqual([3, 0]);
    // A session whose transcripts Claude Code has since deleted is still the source's.
    fs.rmSync(path.join(second, '-home-user-fixtures-compaction'), { recursive: true });
    const pruned = JSON.parse(run(['--json']).out) as { conversations: number; other_conversations_in_data: number };
    expect([pruned.conversations, pruned.other_conversations_in_data]).toEqual([1, 2]);
  });
});

