// An export on a file system that fills up part way: the data folder, the
// export folder or the archive's folder on a small tmpfs. Whatever fills,
// the earlier export is left as it was, nothing the run half-wrote stays,
// the command says in one line per failure what could not be written and
// what to do, and the next export with room completes.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { verifyStorage } from '../../src/verify/storage.ts';
import { copyOfFixtures, filesOf, temporaryFolder } from '../helpers.ts';
import { describeWhere, tmpfsMissing } from '../requirements.ts';
import { SmallDisk } from '../small-disk.ts';
import { sessionizer } from './launcher.ts';

const PROJECTS = ['-home-user-fixtures-rewind', '-home-user-fixtures-compaction', '-home-user-fixtures-retry', '-home-user-fixtures-duplicates'];
const SESSIONS = [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.compaction, FIXTURE_SESSIONS.retry, FIXTURE_SESSIONS.duplicates];

/** A source folder holding only the named project folders of the fixtures. */
function sourceWith(projects: readonly string[]): string {
  const all = copyOfFixtures();
  for (const name of fs.readdirSync(all)) if (!projects.includes(name)) fs.rmSync(path.join(all, name), { recursive: true });
  return all;
}

/** Each session's main transcript grows by `count` copies of its lines: new records, as a session that goes on writes them. */
function grow(source: string, count: number): void {
  for (const project of fs.readdirSync(source)) {
    for (const name of fs.readdirSync(path.join(source, project))) {
      if (!name.endsWith('.jsonl')) continue;
      const file = path.join(source, project, name);
      const lines = fs.readFileSync(file);
      fs.appendFileSync(file, Buffer.concat(Array.from({ length: count }, () => lines)));
    }
  }
}

/** What beside `out` is this tool's: the export folder and anything named after it. */
function besideOut(out: string): string[] {
  return fs.readdirSync(path.dirname(out)).filter((name) => name.startsWith(path.basename(out)));
}

describeWhere(tmpfsMissing(), 'export on a full disk', () => {
  let disk: SmallDisk;
  beforeAll(() => {
    disk = new SmallDisk('24m');
  });
  afterAll(() => disk.unmount());

  it('keeps the earlier export when sessions could not be landed, names each, and lands them once there is room', { timeout: 180_000 }, () => {
    const source = sourceWith(PROJECTS);
    const data = disk.at('data');
    const out = path.join(temporaryFolder(), 'export');
    expect(sessionizer(['export', '--source', source, '--data', data, '--out', out]).code).toBe(0);
    const earlier = filesOf(out);
    grow(source, 120);
    disk.fill(1 << 20);
    const full = sessionizer(['export', '--source', source, '--data', data, '--out', out, '--json']);
    expect(full.code, full.error).toBe(1);
    // Not a stack trace: each session that did not land on a line of its own, naming the file, then what to do.
    const lines = full.error.trimEnd().split('\n');
    const failures = lines.filter((line) => line.startsWith('error: ') && line.includes('could not be written'));
    expect(failures.length).toBeGreaterThan(0);
    for (const line of failures) expect(line).toMatch(new RegExp(`^error: (${SESSIONS.join('|')}) \\S+\\.jsonl: ${data}/\\S+\\.(jsonl|sd): could not be written: no space is left on its file system \\(ENOSPC\\)$`));
    expect(lines.at(-1)).toMatch(new RegExp(`^error: no export was written, and the earlier one in ${out} is left as it was: \\d sessions? could not be landed in ${data} \\(each is named above\\); free space on the file system that holds ${data}, and export again: what landed stays, and the next export lands the rest$`));
    expect(lines.every((line) => /^(error|note|warning): |^(source|data) /.test(line)), full.error).toBe(true);
    const report = JSON.parse(full.out) as { written: boolean; not_landed: { session: string; source: string | null; error: string; code: string | null }[] };
    expect(report.written).toBe(false);
    expect(report.not_landed.length).toBe(failures.length);
    for (const failure of report.not_landed) {
      expect(SESSIONS).toContain(failure.session);
      expect(failure).toEqual({ session: failure.session, source: expect.stringMatching(/\.jsonl$/), error: expect.stringMatching(/: could not be written: no space is left on its file system \(ENOSPC\)$/), code: 'ENOSPC' });
    }
    // The earlier export is as it was, with nothing beside it; the storage zone has no gap.
    expect(filesOf(out)).toEqual(earlier);
    expect(besideOut(out)).toEqual(['export']);
    expect(sessionizer(['verify', out]).code).toBe(0);
    expect(verifyStorage(data).problems).toEqual([]);

    disk.makeRoom();
    const again = sessionizer(['export', '--source', source, '--data', data, '--out', out]);
    expect(again.code, again.error).toBe(0);
    const verified = sessionizer(['verify', out]);
    expect(verified.code, verified.out + verified.error).toBe(0);
  });

  it('keeps the earlier export when a round could not be written, and names the conversation', { timeout: 180_000 }, () => {
    const source = sourceWith(PROJECTS);
    const data = disk.at('data-rounds');
    const out = path.join(temporaryFolder(), 'export');
    expect(sessionizer(['export', '--source', source, '--data', data, '--out', out]).code).toBe(0);
    const earlier = filesOf(out);
    grow(source, 40);
    // Landed with room; then only the export's lock fits.
    expect(sessionizer(['collect', '--once', '--source', source, '--data', data]).code).toBe(0);
    disk.fill(8 << 10);
    const full = sessionizer(['export', '--source', source, '--data', data, '--out', out, '--json']);
    disk.makeRoom();
    expect(full.code, full.error).toBe(1);
    const lines = full.error.trimEnd().split('\n');
    expect(lines.filter((line) => line.includes('could not be parsed: ')).every((line) => new RegExp(`^error: conversation (${SESSIONS.join('|')}) could not be parsed: ${data}/\\S+: could not be written: no space is left on its file system \\(ENOSPC\\)$`).test(line)), full.error).toBe(true);
    expect(lines.at(-1)).toMatch(new RegExp(`^error: no export was written, and the earlier one in ${out} is left as it was: \\d conversations? could not be parsed in ${data} \\(each is named above\\); free space on the file system that holds ${data}, and export again: `));
    const report = JSON.parse(full.out) as { written: boolean; not_landed: unknown[]; not_parsed: { conversation: string; error: string; code: string }[] };
    expect([report.written, report.not_landed]).toEqual([false, []]);
    expect(report.not_parsed.length).toBeGreaterThan(0);
    for (const failure of report.not_parsed) expect([SESSIONS.includes(failure.conversation), failure.code]).toEqual([true, 'ENOSPC']);
    expect(filesOf(out)).toEqual(earlier);
    expect(besideOut(out)).toEqual(['export']);
    const again = sessionizer(['export', '--source', source, '--data', data, '--out', out]);
    expect(again.code, again.error).toBe(0);
    expect(sessionizer(['verify', out]).code).toBe(0);
  });

  it('keeps the earlier export when the data folder fills up while the site is rendered, and says so in one line', { timeout: 180_000 }, () => {
    const source = sourceWith(PROJECTS);
    const data = disk.at('data-site');
    const out = path.join(temporaryFolder(), 'export');
    expect(sessionizer(['export', '--source', source, '--data', data, '--out', out]).code).toBe(0);
    const earlier = filesOf(out);
    grow(source, 3);
    // Landed and parsed with room; then the site's cache, in the data folder, has next to none.
    expect(sessionizer(['collect', '--once', '--source', source, '--data', data]).code).toBe(0);
    expect(sessionizer(['parse', '--data', data]).code).toBe(0);
    disk.fill(64 << 10);
    const full = sessionizer(['export', '--source', source, '--data', data, '--out', out]);
    disk.makeRoom();
    expect(full.code, full.error).toBe(1);
    expect(full.error.trimEnd().split('\n').filter((line) => !/^(source|data) /.test(line)), full.error).toEqual([
      expect.stringMatching(new RegExp(`^error: --data ${data}: (the data folder could not be written: |${data}/_site-cache/\\S+: could not be written: )no space is left on its file system \\(ENOSPC\\); no export was written, and the earlier one in ${out} is left as it was; free space on the file system that holds ${data}, and export again: what landed stays$`)),
    ]);
    expect(filesOf(out)).toEqual(earlier);
    expect(besideOut(out)).toEqual(['export']);
    const again = sessionizer(['export', '--source', source, '--data', data, '--out', out]);
    expect(again.code, again.error).toBe(0);
    expect(sessionizer(['verify', out]).code).toBe(0);
  });

  it('collects into a full data folder with one line per failure and exit 1, and leaves it a storage zone that collects once there is room', () => {
    const source = sourceWith(PROJECTS);
    const data = disk.at('data-collect');
    fs.mkdirSync(data);
    disk.fill(0);
    const full = sessionizer(['collect', '--once', '--source', source, '--data', data]);
    disk.makeRoom();
    expect(full.code, full.error).toBe(1);
    const lines = full.error.trimEnd().split('\n').filter((line) => !/^(source|data) /.test(line));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(new RegExp(`^error: .*${data}/\\S+: could not be written: no space is left on its file system \\(ENOSPC\\)`));
    // Nothing it made and left empty makes the folder one that is not a storage zone.
    const again = sessionizer(['collect', '--once', '--source', source, '--data', data]);
    expect(again.code, again.error).toBe(0);
    expect(verifyStorage(data).problems).toEqual([]);
  });

  it('refuses, with exit 2 and one line, an --out or an --archive on a read-only file system', () => {
    const readOnly = new SmallDisk('1m', { readOnly: true });
    try {
      const source = sourceWith(PROJECTS.slice(0, 1));
      const work = temporaryFolder();
      const data = path.join(work, 'data');
      const out = readOnly.at('export');
      const refused = sessionizer(['export', '--source', source, '--data', data, '--out', out]);
      expect([refused.code, refused.error]).toEqual([2, `sessionizer export: --out ${out}: its folder ${readOnly.folder} cannot be written (its file system is read-only); give --out a folder where you can write\n`]);
      const archive = readOnly.at('export.tar.zst');
      const archived = sessionizer(['export', '--source', source, '--data', data, '--out', path.join(work, 'export'), '--archive', archive]);
      expect([archived.code, archived.error]).toEqual([2, `sessionizer export: --archive ${archive}: its folder ${readOnly.folder} cannot be written (its file system is read-only); give a file in a folder where you can write\n`]);
      expect(fs.readdirSync(work)).toEqual([]);
    } finally {
      readOnly.unmount();
    }
  });

  it('keeps the earlier export when the export folder fills up, says so in one line, and writes it once there is room', { timeout: 180_000 }, () => {
    const source = sourceWith(PROJECTS);
    const data = path.join(temporaryFolder(), 'data');
    const out = disk.at('out', 'export');
    expect(sessionizer(['export', '--source', source, '--data', data, '--out', out, '--include', SESSIONS[0]!]).code).toBe(0);
    const earlier = filesOf(out);
    grow(source, 60);
    disk.fill(256 << 10);
    const full = sessionizer(['export', '--source', source, '--data', data, '--out', out, '--json']);
    disk.makeRoom();
    expect(full.code, full.error).toBe(1);
    const lines = full.error.trimEnd().split('\n');
    expect(lines.filter((line) => !/^(source|data) /.test(line)), full.error).toEqual([
      expect.stringMatching(new RegExp(`^error: --out ${out}: the export could not be written: (${out}\\.partial-\\d+/\\S+: could not be written: )?no space is left on its file system \\(ENOSPC\\); nothing of it is left, and the earlier export in ${out} is left as it was; free space on the file system that holds ${path.dirname(out)}, or give --out a folder on another one, and export again$`)),
    ]);
    expect(JSON.parse(full.out)).toEqual({ out, written: false, error: lines.at(-1)!.slice('error: '.length), elapsed_ms: expect.any(Number), steps: expect.any(Array) });
    expect(filesOf(out)).toEqual(earlier);
    expect(besideOut(out)).toEqual(['export']);
    const again = sessionizer(['export', '--source', source, '--data', data, '--out', out]);
    expect(again.code, again.error).toBe(0);
    expect(sessionizer(['verify', out]).code).toBe(0);
  });

  it('keeps the earlier archive when the archive fills up, says so in one line, and writes it once there is room', { timeout: 180_000 }, () => {
    const source = sourceWith(PROJECTS);
    const data = path.join(temporaryFolder(), 'data');
    const out = path.join(temporaryFolder(), 'export');
    const archive = disk.at('archives', 'export.tar.zst');
    fs.mkdirSync(path.dirname(archive), { recursive: true });
    expect(sessionizer(['export', '--source', source, '--data', data, '--out', out, '--archive', archive, '--include', SESSIONS[0]!]).code).toBe(0);
    const earlier = fs.readFileSync(archive);
    grow(source, 200);
    disk.fill(earlier.length + (64 << 10));
    const full = sessionizer(['export', '--source', source, '--data', data, '--out', out, '--archive', archive]);
    disk.makeRoom();
    expect(full.code, full.error).toBe(1);
    expect(full.error.trimEnd().split('\n').filter((line) => !/^(source|data) /.test(line)), full.error).toEqual([
      `error: --archive ${archive}: the archive could not be written: no space is left on its file system (ENOSPC); the export in ${out} is written and whole, and the earlier archive is left as it was; free space on the file system that holds ${path.dirname(archive)}, or give --archive a file on another one, and export again`,
    ]);
    expect(fs.readFileSync(archive).equals(earlier)).toBe(true);
    expect(fs.readdirSync(path.dirname(archive))).toEqual(['export.tar.zst']);
    expect(sessionizer(['verify', out]).code).toBe(0);
    const again = sessionizer(['export', '--source', source, '--data', data, '--out', out, '--archive', archive]);
    expect(again.code, again.error).toBe(0);
    expect(sessionizer(['verify', archive]).code).toBe(0);
  });
});
