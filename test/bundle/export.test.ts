import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/adapters/dialects.ts';
import { EarlierExports, recoverInterruptedExports, writeExport, type ExportOptions } from '../../src/export/export-folder.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { verifyExport } from '../../src/verify/export.ts';
import { generateCorpus } from '../../scripts/generate-corpus.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { collectOnce, completeLines, copyOfFixtures, exportInTwoRounds, parsedFixtures, temporaryFolder } from '../helpers.ts';

const launcher = fileURLToPath(new URL('../../src/cli/sessionizer.mjs', import.meta.url));

// The site is built by the first test and the determinism test; the cases of
// damage are about the bundle and its manifest, and skip it to stay fast.
async function exported(sessions: string[] = Object.values(FIXTURE_SESSIONS).filter((session) => session !== FIXTURE_SESSIONS.empty), options: ExportOptions = { site: false }): Promise<string> {
  const data = temporaryFolder();
  collectOnce(copyOfFixtures(), data);
  for (const session of sessions) parseSession(data, session);
  const out = path.join(temporaryFolder(), 'export');
  await writeExport(data, out, sessions, options);
  return out;
}

const writable = (file: string): void => fs.chmodSync(file, 0o644);
const sha = (bytes: Buffer | string): string => crypto.createHash('sha256').update(bytes).digest('hex');
const problems = async (out: string, deep = false) => (await verifyExport(out, { deep, converters: CONVERTERS })).problems;

/** Rewrites the manifest after a change, and fixes up the root digest and the plain manifest too. */
function refreshManifest(out: string, change: (entries: { path: string; size: number; sha256: string }[]) => void): void {
  const manifestPath = path.join(out, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { files: { path: string; size: number; sha256: string }[] };
  change(manifest.files);
  const bytes = `${JSON.stringify(manifest, null, 1)}\n`;
  fs.writeFileSync(manifestPath, bytes);
  fs.writeFileSync(path.join(out, 'manifest-sha256.txt'), manifest.files.map((entry) => `${entry.sha256}  ${entry.path}\n`).join(''));
  fs.writeFileSync(path.join(out, 'root-digest.txt'), `${sha(bytes)}\n`);
}

const landedIn = (out: string, session: string): string => {
  const folder = path.join(out, 'bundle', session, 'streams', 'main');
  return path.join(folder, fs.readdirSync(folder).find((name) => name.endsWith('.jsonl'))!);
};

describe('the export folder', () => {
  it('covers every file with size and SHA-256, passes sha256sum -c and a deep verify, and is the same bytes twice', { timeout: 180_000 }, async () => {
    const out = await exported(undefined, {});
    expect(await problems(out, true)).toEqual([]);
    const check = spawnSync('sha256sum', ['-c', '--quiet', 'manifest-sha256.txt'], { cwd: out, encoding: 'utf8' });
    expect([check.status, check.stdout + check.stderr]).toEqual([0, '']);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { files: { path: string }[] };
    const listed = manifest.files.map((entry) => entry.path);
    expect(listed).toEqual([...listed].sort());
    expect(listed.every((entry) => entry.startsWith('bundle/') || entry.startsWith('site/') || entry === '.sessionizer-export')).toBe(true);
    expect(listed).toContain('.sessionizer-export');
    expect(listed).toContain('site/index.html');
    expect(listed.some((entry) => entry.endsWith('.cursor') || entry.endsWith('session.state') || entry.endsWith('session.index'))).toBe(false);
    expect(fs.readFileSync(path.join(out, 'root-digest.txt'), 'utf8').trim()).toBe(sha(fs.readFileSync(path.join(out, 'manifest.json'))));
  });

  it('gives the same bytes for the same evidence, and a small bundle for the chosen conversations only', { timeout: 180_000 }, async () => {
    const data = temporaryFolder();
    collectOnce(copyOfFixtures(), data);
    parseSession(data, FIXTURE_SESSIONS.rewind);
    const first = await writeExport(data, path.join(temporaryFolder(), 'a'), [FIXTURE_SESSIONS.rewind]);
    const second = await writeExport(data, path.join(temporaryFolder(), 'b'), [FIXTURE_SESSIONS.rewind]);
    expect(second.rootDigest).toBe(first.rootDigest);
    expect(fs.readdirSync(path.join(first.out, 'bundle')).sort()).toEqual([FIXTURE_SESSIONS.rewind, '_conversations'].sort());
  });

  it('replaces an earlier export only once the new one is whole', async () => {
    const data = temporaryFolder();
    collectOnce(copyOfFixtures(), data);
    parseSession(data, FIXTURE_SESSIONS.rewind);
    const out = path.join(temporaryFolder(), 'export');
    const first = await writeExport(data, out, [FIXTURE_SESSIONS.rewind], { site: false });
    await expect(writeExport(data, out, ['../../escape'])).rejects.toThrow('conversation "../../escape": not a name a storage zone can hold');
    // A failed write leaves the earlier export as it was.
    fs.mkdirSync(`${out}.partial-${process.pid}`, { recursive: true });
    fs.writeFileSync(path.join(`${out}.partial-${process.pid}`, 'leftover'), 'x');
    await writeExport(data, out, [FIXTURE_SESSIONS.rewind], { site: false });
    expect(fs.existsSync(`${out}.partial-${process.pid}`)).toBe(false);
    expect(fs.readFileSync(path.join(out, 'root-digest.txt'), 'utf8').trim()).toBe(first.rootDigest);
    // The export it replaced is removed in the background, and a third export
    // right after waits for that, and for what the one before it recorded:
    // it links every file but the export's marker.
    const earlier = new EarlierExports();
    const third = await writeExport(data, out, [FIXTURE_SESSIONS.rewind], { site: false, earlier });
    const fourth = await writeExport(data, out, [FIXTURE_SESSIONS.rewind], { site: false, earlier });
    expect([fourth.reused, fourth.copied]).toEqual([third.files - 1, 0]);
    expect(await earlier.removed()).toEqual([]);
    expect(fs.readdirSync(path.dirname(out))).toEqual(['export']);
  });

  it('links what did not change from the previous export, copies what did, and never trusts a copy that was edited', async () => {
    const sessions = [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.bareStringResult];
    const { root, data } = parsedFixtures(sessions);
    const out = path.join(temporaryFolder(), 'export');
    const first = await writeExport(data, out, sessions, { site: false });
    // Every file but the export's marker, which is written anew each time.
    const evidence = first.files - 1;
    expect([first.reused, first.copied]).toEqual([0, evidence]);

    const second = await writeExport(data, out, sessions, { site: false });
    expect([second.reused, second.copied, second.rootDigest]).toEqual([evidence, 0, first.rootDigest]);
    expect(await problems(out, true)).toEqual([]);

    // One conversation grows by one line: its new landed file, its .sd and its
    // new round are copied; everything else is linked.
    const transcript = path.join(root, '-home-user-fixtures-bare-string-result', `${FIXTURE_SESSIONS.bareStringResult}.jsonl`);
    fs.appendFileSync(transcript, `${completeLines(transcript).at(-1)!.toString('utf8')}\n`);
    collectOnce(root, data);
    expect(parseSession(data, FIXTURE_SESSIONS.rewind).unchanged).toBe(true);
    expect(parseSession(data, FIXTURE_SESSIONS.bareStringResult).round).toBeDefined();
    const third = await writeExport(data, out, sessions, { site: false });
    expect([third.copied, third.reused]).toEqual([3, evidence]);
    expect(await problems(out, true)).toEqual([]);

    // A copy edited in the export folder is never linked into the next one.
    const edited = landedIn(out, FIXTURE_SESSIONS.rewind);
    writable(edited);
    fs.appendFileSync(edited, ' ');
    const fourth = await writeExport(data, out, sessions, { site: false });
    expect(fourth.copied).toBe(1);
    expect(await problems(out, true)).toEqual([]);
    expect(fourth.rootDigest).toBe(third.rootDigest);
  });
});

describe('a bad export: one case per error, each reported exactly', () => {
  it('a tampered byte', async () => {
    const out = await exported([FIXTURE_SESSIONS.rewind]);
    const file = landedIn(out, FIXTURE_SESSIONS.rewind);
    writable(file);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('tin roof', 'tin ROOF'));
    const relative = path.relative(out, file);
    expect(await problems(out)).toEqual(expect.arrayContaining([{ path: relative, what: expect.stringMatching(/^its SHA-256 is [0-9a-f]{64}, expected [0-9a-f]{64}$/) }]));
  });

  it('a truncated file', async () => {
    const out = await exported([FIXTURE_SESSIONS.rewind]);
    const file = landedIn(out, FIXTURE_SESSIONS.rewind);
    const size = fs.statSync(file).size;
    writable(file);
    fs.truncateSync(file, size - 10);
    expect(await problems(out)).toEqual(expect.arrayContaining([{ path: path.relative(out, file), what: `its size is ${size - 10} bytes, expected ${size}` }]));
  });

  it('a missing file, and a renamed one', async () => {
    const out = await exported([FIXTURE_SESSIONS.rewind]);
    const file = landedIn(out, FIXTURE_SESSIONS.rewind);
    const sd = file.replace(/\.jsonl$/, '.sd');
    fs.renameSync(sd, `${sd}.old`);
    fs.rmSync(file);
    const found = await problems(out);
    expect(found).toEqual(expect.arrayContaining([
      { path: path.relative(out, file), what: expect.stringMatching(/^missing: the manifest lists it \(\d+ bytes, sha256 [0-9a-f]{64}\)$/) },
      { path: path.relative(out, sd), what: expect.stringMatching(/^missing: /) },
      { path: `${path.relative(out, sd)}.old`, what: 'extra: the manifest does not list it' },
    ]));
  });

  it('an extra file at the top and one deep inside', async () => {
    const out = await exported([FIXTURE_SESSIONS.rewind]);
    fs.writeFileSync(path.join(out, 'README'), 'not listed');
    fs.writeFileSync(path.join(out, 'bundle', FIXTURE_SESSIONS.rewind, 'streams', 'main', 'notes'), 'not listed');
    expect(await problems(out)).toEqual(expect.arrayContaining([
      { path: 'README', what: 'extra: the manifest does not list it' },
      { path: `bundle/${FIXTURE_SESSIONS.rewind}/streams/main/notes`, what: 'extra: the manifest does not list it' },
    ]));
  });

  it('swapped rounds, and a broken chain link with every digest fixed up', async () => {
    const session = FIXTURE_SESSIONS.rewind;
    const out = await exportInTwoRounds('-home-user-fixtures-rewind', session);
    const rounds = path.join(out, 'bundle', '_conversations', session, 'rounds');
    const [one, two] = fs.readdirSync(rounds).sort();
    // Swapped: each round's bytes under the other's name.
    const swapped = path.join(temporaryFolder(), 'swapped');
    fs.cpSync(out, swapped, { recursive: true });
    const a = path.join(swapped, 'bundle', '_conversations', session, 'rounds', one!);
    const b = path.join(swapped, 'bundle', '_conversations', session, 'rounds', two!);
    const [bytesA, bytesB] = [fs.readFileSync(a), fs.readFileSync(b)];
    writable(a);
    writable(b);
    fs.writeFileSync(a, bytesB);
    fs.writeFileSync(b, bytesA);
    expect(await problems(swapped)).toEqual(expect.arrayContaining([{ path: path.relative(swapped, a), what: expect.stringMatching(/^its name does not match round 2/) }]));
    // A broken link: round 2 re-written to name another predecessor, its own digest, its name, the manifest and the root digest all fixed up.
    const second = path.join(rounds, two!);
    const text = fs.readFileSync(second, 'utf8').split('\n');
    const header = JSON.parse(text[0]!);
    header.previous = 'f'.repeat(64);
    const body = [JSON.stringify(header), ...text.slice(1, -2)].map((line) => `${line}\n`).join('');
    const digest = sha(body);
    const commit = { ...JSON.parse(text.at(-2)!), digest };
    const relinked = path.join(rounds, `r000002-${digest.slice(0, 12)}.sf`);
    fs.rmSync(second);
    fs.writeFileSync(relinked, `${body}${JSON.stringify(commit)}\n`);
    refreshManifest(out, (entries) => {
      const entry = entries.find((item) => item.path.endsWith(two!))!;
      entry.path = path.relative(out, relinked);
      entry.size = fs.statSync(relinked).size;
      entry.sha256 = sha(fs.readFileSync(relinked));
      entries.sort((x, y) => Buffer.compare(Buffer.from(x.path), Buffer.from(y.path)));
    });
    expect(await problems(out)).toEqual([{ path: path.relative(out, relinked), what: `it names ${'f'.repeat(64)} as its predecessor, expected ${JSON.parse(fs.readFileSync(path.join(rounds, one!), 'utf8').trim().split('\n').at(-1)!).digest}` }]);
  });

  it('a manifest edited with the root digest fixed up: the evidence itself still says no', async () => {
    const out = await exported([FIXTURE_SESSIONS.rewind]);
    const file = landedIn(out, FIXTURE_SESSIONS.rewind);
    writable(file);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('tin roof', 'tin ROOF'));
    refreshManifest(out, (entries) => {
      const entry = entries.find((item) => item.path === path.relative(out, file))!;
      entry.sha256 = sha(fs.readFileSync(file));
    });
    const found = await problems(out);
    expect(found.some((entry) => entry.path === path.relative(out, file) && /^record 2 \(source line 2\): its bytes do not match its digest/.test(entry.what))).toBe(true);
    expect(found.every((entry) => entry.path.startsWith('bundle/'))).toBe(true);
  });

  it('the root digest missing, or not matching the manifest', async () => {
    const out = await exported([FIXTURE_SESSIONS.rewind]);
    fs.writeFileSync(path.join(out, 'root-digest.txt'), `${'0'.repeat(64)}\n`);
    expect(await problems(out)).toEqual([{ path: 'manifest.json', what: `the manifest does not match the root digest (expected ${'0'.repeat(64)}, found ${sha(fs.readFileSync(path.join(out, 'manifest.json')))})` }]);
    fs.rmSync(path.join(out, 'root-digest.txt'));
    expect(await problems(out)).toEqual([{ path: 'root-digest.txt', what: 'the root digest is missing' }]);
  });

  it('a symbolic link inside the export', async () => {
    const out = await exported([FIXTURE_SESSIONS.rewind]);
    fs.symlinkSync('/etc/passwd', path.join(out, 'bundle', 'link'));
    expect(await problems(out)).toEqual(expect.arrayContaining([{ path: 'bundle/link', what: 'a symbolic link; an export holds regular files only' }]));
  });
});

describe('npm run export on a machine with no Claude Code history', () => {
  it('exports the sample corpus, says so, and the export verifies', { timeout: 180_000 }, async () => {
    const home = temporaryFolder();
    const result = spawnSync(process.execPath, [launcher, 'export'], { cwd: home, encoding: 'utf8', env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: '', XDG_CONFIG_HOME: '' } });
    expect(result.status).toBe(0);
    // Every fixture but the empty one, which lands nothing.
    expect(result.stdout).toMatch(new RegExp(`^Exported the sample corpus \\(no Claude Code history was found\\)\\.\\nexport written to .*: ${Object.keys(FIXTURE_SESSIONS).length - 1} conversations`));
    expect(result.stdout).toMatch(/^root digest [0-9a-f]{64}$/m);
    expect(result.stdout).toMatch(/^Open the site: export\/site\/index\.html \(\d+ pages, /m);
    expect(fs.existsSync(path.join(home, 'export', 'site', 'index.html'))).toBe(true);
    const verified = spawnSync(process.execPath, [launcher, 'verify', 'export'], { cwd: home, encoding: 'utf8' });
    expect([verified.status, verified.stdout]).toEqual([0, expect.stringMatching(/all intact\n$/)]);
  });
});

describe('an export archived again after one line was appended', () => {
  it('copies frames of the conversations that did not change, compresses the changed ones, and the archive verifies', { timeout: 180_000 }, async () => {
    const root = copyOfFixtures();
    const work = temporaryFolder();
    const run = (): { archive_frames: number; archive_frames_reused: number } => {
      const result = spawnSync(process.execPath, [launcher, 'export', '--source', root, '--data', path.join(work, 'data'), '--out', path.join(work, 'export'), '--archive', path.join(work, 'export.tar.zst'), '--json'], { encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      return JSON.parse(result.stdout);
    };
    const first = run();
    expect(first.archive_frames_reused).toBe(0);
    const transcript = fs.readdirSync(root, { recursive: true }).map(String).find((file) => file.endsWith(`${FIXTURE_SESSIONS.rewind}.jsonl`))!;
    fs.appendFileSync(path.join(root, transcript), `${completeLines(path.join(root, transcript)).at(-1)!.toString()}\n`);
    const second = run();
    expect(second.archive_frames).toBeGreaterThan(3);
    expect(second.archive_frames_reused).toBeGreaterThan(0);
    expect(second.archive_frames_reused).toBeLessThan(second.archive_frames);
    const verified = spawnSync(process.execPath, [launcher, 'verify', path.join(work, 'export.tar.zst')], { encoding: 'utf8' });
    expect([verified.status, verified.stdout]).toEqual([0, expect.stringMatching(/all intact\n$/)]);
  });
});

describe('an interrupted export', () => {
  it('tidies what a dead export left: a half-written folder goes, and an earlier export moved aside comes back', () => {
    const parent = temporaryFolder();
    const out = path.join(parent, 'export');
    // A process id that cannot be running: above Linux's largest.
    const dead = 4_194_305;
    fs.mkdirSync(`${out}.partial-${dead}/bundle`, { recursive: true });
    fs.mkdirSync(`${out}.previous-${dead}`, { recursive: true });
    fs.writeFileSync(path.join(`${out}.previous-${dead}`, 'root-digest.txt'), 'earlier\n');
    fs.mkdirSync(`${out}-other.partial-${dead}`);
    recoverInterruptedExports(out);
    expect(fs.readdirSync(parent).sort()).toEqual(['export', `export-other.partial-${dead}`]);
    expect(fs.readFileSync(path.join(out, 'root-digest.txt'), 'utf8')).toBe('earlier\n');
  });

  it('on Ctrl-C keeps the storage zone and the earlier export intact, and the next run completes', { timeout: 180_000 }, async () => {
    const root = path.join(temporaryFolder(), 'projects');
    generateCorpus({ out: root, bytes: 8e6, seed: 'interrupt' });
    const work = temporaryFolder();
    const run = (...extra: string[]) => spawnSync(process.execPath, [launcher, 'export', '--source', root, '--data', 'data', '--out', 'export', ...extra], { cwd: work, encoding: 'utf8' });
    // An earlier export of one conversation.
    const first = spawnSync(process.execPath, [launcher, 'collect', '--once', '--source', root, '--data', 'data', '--include', generatedSession(root)], { cwd: work, encoding: 'utf8' });
    expect(first.status).toBe(0);
    expect(run('--conversation', generatedSession(root)).status).toBe(0);
    const earlier = fs.readFileSync(path.join(work, 'export', 'root-digest.txt'), 'utf8');

    // Interrupted once it has started writing the new export beside the earlier one.
    const child = spawn(process.execPath, [launcher, 'export', '--source', root, '--data', 'data', '--out', 'export'], { cwd: work, stdio: 'ignore' });
    const watcher = fs.watch(work, (_event, name) => {
      if (name?.startsWith('export.partial-')) child.kill('SIGINT');
    });
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, ended) => resolve(ended)));
    watcher.close();
    expect(signal).toBe('SIGINT');
    expect(fs.readFileSync(path.join(work, 'export', 'root-digest.txt'), 'utf8')).toBe(earlier);
    expect(await problems(path.join(work, 'export'))).toEqual([]);

    const again = run('--json');
    expect(again.status).toBe(0);
    expect(fs.readdirSync(work).sort()).toEqual(['data', 'export']);
    const report = JSON.parse(again.stdout) as { conversations: number; steps: { step: string }[] };
    expect(report.steps.map((entry) => entry.step)).toEqual(['collect', 'parse', 'bundle', 'digest', 'site', 'manifest', 'replace']);
    expect(report.conversations).toBe(fs.readdirSync(path.join(work, 'export', 'bundle')).length - 1);
    expect(await problems(path.join(work, 'export'), true)).toEqual([]);
    const storage = spawnSync(process.execPath, [launcher, 'verify', 'data'], { cwd: work, encoding: 'utf8' });
    expect(storage.status).toBe(0);
  });
});

/** The first session of a generated corpus, which is its largest. */
function generatedSession(root: string): string {
  const project = fs.readdirSync(root).sort()[0]!;
  return fs.readdirSync(path.join(root, project)).filter((name) => name.endsWith('.jsonl')).sort()[0]!.replace(/\.jsonl$/, '');
}

describe('an export made of exports (a history split by conversation, merged by manifest)', () => {
  it('is the same export as one made whole, and refuses inputs that do not verify or disagree', { timeout: 180_000 }, async () => {
    const data = temporaryFolder();
    collectOnce(copyOfFixtures(), data);
    const [one, two] = [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.nestedAgents];
    for (const session of [one!, two!]) parseSession(data, session);
    const parent = temporaryFolder();
    // Nothing to collect: the storage zone already holds both conversations.
    fs.mkdirSync(path.join(parent, 'none'));
    const run = (...args: string[]) => spawnSync(process.execPath, [launcher, 'export', '--data', data, ...args], { cwd: parent, encoding: 'utf8' });
    expect(run('--source', path.join(parent, 'none'), '--conversation', one!, '--out', 'part-one').status).toBe(0);
    expect(run('--source', path.join(parent, 'none'), '--conversation', two!, '--out', 'part-two').status).toBe(0);
    expect(run('--source', path.join(parent, 'none'), '--conversation', one!, '--conversation', two!, '--out', 'whole').status).toBe(0);

    const merged = run('--merge', 'part-one', '--merge', 'part-two', '--out', 'merged', '--json');
    expect(merged.status).toBe(0);
    const report = JSON.parse(merged.stdout) as { root_digest: string; conversations: number; steps: { step: string }[] };
    expect(report.conversations).toBe(2);
    expect(report.steps.map((entry) => entry.step)).toEqual(['verify', 'bundle', 'digest', 'site', 'manifest', 'replace']);
    expect(report.root_digest).toBe(fs.readFileSync(path.join(parent, 'whole', 'root-digest.txt'), 'utf8').trim());
    expect(await problems(path.join(parent, 'merged'), true)).toEqual([]);

    // The same conversation from another storage zone is other evidence: refused, naming it.
    const otherData = temporaryFolder();
    collectOnce(copyOfFixtures(), otherData);
    parseSession(otherData, one!);
    expect(spawnSync(process.execPath, [launcher, 'export', '--data', otherData, '--source', path.join(parent, 'none'), '--conversation', one!, '--out', 'other-one'], { cwd: parent }).status).toBe(0);
    const conflict = run('--merge', 'part-one', '--merge', 'other-one', '--out', 'refused');
    expect([conflict.status, conflict.stderr]).toEqual([1, expect.stringContaining(`error: conversation ${one}: ${path.join(parent, 'part-one')} and ${path.join(parent, 'other-one')} hold different evidence for it`)]);
    expect(fs.existsSync(path.join(parent, 'refused'))).toBe(false);

    // A damaged input is refused before anything is written.
    const landed = landedIn(path.join(parent, 'part-two'), two!);
    writable(landed);
    fs.appendFileSync(landed, ' ');
    const damaged = run('--merge', 'part-one', '--merge', 'part-two', '--out', 'refused');
    expect([damaged.status, damaged.stderr]).toEqual([1, expect.stringContaining('error: an export to merge did not verify; nothing was written')]);
    expect(run('--merge', 'part-one', '--conversation', one!).status).toBe(2);
  });
});
