// `verify --deep` on a `.tar.zst`: one stream, nothing written, the same
// verdict as on the folder, in whatever order the archive holds its entries.
// Each forgery below is made consistent (record digests, the `.sd` header,
// round digests and names, the manifest and root digest all fixed up), so
// that only deriving or assembling again can see it: the shallow verify of
// each is asserted to pass first, or, for a landed file changed, to name
// only the input digest of the round that read it.

import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/adapters/dialects.ts';
import { writeArchive } from '../../src/bundle/archive.ts';
import { BUNDLE } from '../../src/bundle/manifest.ts';
import { compareBytes, exportFiles, writeManifest } from '../../src/bundle/manifest.ts';
import { parseRecordLine } from '../../src/landing/landed-file.ts';
import { digestOf } from '../../src/files/digest.ts';
import { landedFilesOfSession } from '../../src/landing/session-state.ts';
import { roundFiles } from '../../src/session-flow/chain.ts';
import { verifyArchive } from '../../src/verify/archive.ts';
import { verifyExport } from '../../src/verify/export.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { exportedFixtures, exportInTwoRounds, temporaryFolder } from '../helpers.ts';

const launcher = fileURLToPath(new URL('../../src/cli/sessionizer.mjs', import.meta.url));
const deep = { deep: true, converters: CONVERTERS };

let out: string;
let archive: string;
beforeAll(async () => {
  ({ out, archive } = await exportedFixtures([FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.nestedAgents, FIXTURE_SESSIONS.compaction]));
});

/** A writable copy of the export, named `export` like the original, for a forgery. */
function copyOfExport(): string {
  const copy = path.join(temporaryFolder(), 'export');
  fs.cpSync(out, copy, { recursive: true });
  for (const relative of exportFiles(copy).files) fs.chmodSync(path.join(copy, relative), 0o644);
  return copy;
}

/** The forged folder with its manifest and root digest made anew, as our archiver packs it. */
async function archived(copy: string): Promise<string> {
  writeManifest(copy);
  const file = path.join(temporaryFolder(), 'forged.tar.zst');
  await writeArchive(copy, file);
  return file;
}

const sha256 = (bytes: Buffer | string): string => crypto.createHash('sha256').update(bytes).digest('hex');
const summary = ({ files, bytes, rootDigest, sessions, landedFiles, records, chains, rounds }: Awaited<ReturnType<typeof verifyArchive>>) => ({ files, bytes, rootDigest, sessions, landedFiles, records, chains, rounds });

/** The rewind session's first landed file, inside a copy: its path and its `.sd`'s, relative to the export. */
function rewindFile(copy: string): { landed: string; sessionData: string } {
  const [first] = landedFilesOfSession(path.join(copy, BUNDLE), FIXTURE_SESSIONS.rewind);
  const landed = `${BUNDLE}/${FIXTURE_SESSIONS.rewind}/${first!.relative}`;
  return { landed, sessionData: landed.replace(/\.jsonl$/, '.sd') };
}

describe('verify --deep of an archive', () => {
  it('passes a good export with the same counts as the deep verify of its folder', async () => {
    const folder = await verifyExport(out, deep);
    const stream = await verifyArchive(archive, deep);
    expect(folder.problems).toEqual([]);
    expect(stream.problems).toEqual([]);
    expect(summary(stream)).toEqual(summary(folder));
    expect(stream.sessions).toBe(3);
    expect(stream.rounds).toBeGreaterThanOrEqual(3);
    expect(stream.records).toBeGreaterThan(20);
  });

  it('catches a landed payload changed with its record digest, its .sd header and the manifest fixed up, naming the .sd and its row', async () => {
    const copy = copyOfExport();
    const { landed, sessionData } = rewindFile(copy);
    const lines = fs.readFileSync(path.join(copy, landed), 'utf8').split('\n');
    const position = lines.findIndex((line) => line.includes('Rain on the tin roof.'));
    expect(position).toBeGreaterThan(0);
    const forged = Buffer.from(lines[position]!.replace('Rain on the tin roof.', 'Snow on the tin roof.'));
    const record = parseRecordLine(forged);
    lines[position] = forged.toString('utf8').replace(record.sha, digestOf(record.payload));
    fs.writeFileSync(path.join(copy, landed), lines.join('\n'));
    const sd = fs.readFileSync(path.join(copy, sessionData), 'utf8').split('\n');
    const header = JSON.parse(sd[0]!) as { of_sha: string };
    sd[0] = sd[0]!.replace(header.of_sha, sha256(fs.readFileSync(path.join(copy, landed))));
    fs.writeFileSync(path.join(copy, sessionData), sd.join('\n'));
    const file = await archived(copy);

    // The round that read the landed file says so without deriving anything.
    const [round] = roundFiles(path.join(copy, BUNDLE), FIXTURE_SESSIONS.rewind).map((found) => path.relative(copy, found));
    const inputDigest = { path: round, what: expect.stringMatching(/^its input digest is [0-9a-f]{64}, but the landed files it covers/) };
    expect((await verifyArchive(file)).problems).toEqual([inputDigest]);
    const problems = (await verifyArchive(file, deep)).problems;
    expect(problems).toEqual([{ path: sessionData, what: expect.stringMatching(new RegExp(`^deriving it again from its landed file gives different bytes, first on line ${position + 1}, row ${position} \\(expected a line with sha256 [0-9a-f]{64}, found a line with sha256 ${sha256(`${sd[position]}\n`)}\\)$`)) }, inputDigest]);
    // The folder says the same.
    expect((await verifyExport(copy, deep)).problems).toEqual(problems);
  });

  it('catches a .sd row changed with the manifest fixed up', async () => {
    const copy = copyOfExport();
    const { sessionData } = rewindFile(copy);
    const sd = fs.readFileSync(path.join(copy, sessionData), 'utf8').split('\n');
    const position = sd.findIndex((line) => line.includes('Rain on the tin roof.'));
    const before = sha256(`${sd[position]}\n`);
    sd[position] = sd[position]!.replace('Rain on the tin roof.', 'Snow on the tin roof.');
    fs.writeFileSync(path.join(copy, sessionData), sd.join('\n'));
    const file = await archived(copy);

    expect((await verifyArchive(file)).problems).toEqual([]);
    expect((await verifyArchive(file, deep)).problems).toEqual([
      { path: sessionData, what: `deriving it again from its landed file gives different bytes, first on line ${position + 1}, row ${position} (expected a line with sha256 ${before}, found a line with sha256 ${sha256(`${sd[position]}\n`)})` },
    ]);
  });

  it('catches a round whose entity was changed with its digest, its name and the manifest fixed up, naming the first differing field', async () => {
    const copy = copyOfExport();
    const conversation = FIXTURE_SESSIONS.rewind;
    const rounds = roundFiles(path.join(copy, BUNDLE), conversation);
    expect(rounds).toHaveLength(1);
    const lines = fs.readFileSync(rounds[0]!, 'utf8').trimEnd().split('\n');
    const position = lines.findIndex((line) => line.includes('"id":"stream/main"'));
    const entity = JSON.parse(lines[position]!) as { attrs: { records: number } };
    const records = entity.attrs.records;
    lines[position] = lines[position]!.replace(`"records":${records}`, `"records":${records + 1}`);
    const body = lines.slice(0, -1).map((line) => `${line}\n`).join('');
    const digest = sha256(body);
    const commit = JSON.parse(lines.at(-1)!) as { digest: string };
    fs.rmSync(rounds[0]!);
    fs.writeFileSync(path.join(path.dirname(rounds[0]!), `r000001-${digest.slice(0, 12)}.sf`), `${body}${lines.at(-1)!.replace(commit.digest, digest)}\n`);
    const file = await archived(copy);

    expect((await verifyArchive(file)).problems).toEqual([]);
    const expected = [
      {
        path: `${BUNDLE}/_conversations/${conversation}`,
        what: `assembling its evidence again does not give the structure its rounds fold to: nodes stream/main, field attrs.records (expected ${records + 1} as folded, found ${records} assembled again)`,
      },
    ];
    expect((await verifyArchive(file, deep)).problems).toEqual(expected);
    expect((await verifyExport(copy, deep)).problems).toEqual(expected);
  });

  it('reports a file out of place in a session folder the same in the archive as in the folder', async () => {
    const copy = copyOfExport();
    const stray = `${path.posix.dirname(rewindFile(copy).landed)}/notes.txt`;
    fs.writeFileSync(path.join(copy, stray), 'mine');
    const file = await archived(copy);
    const expected = [{ path: stray, what: 'a file the storage layout has no place for' }];
    expect((await verifyArchive(file)).problems).toEqual(expected);
    expect((await verifyExport(copy)).problems).toEqual(expected);
  });

  it('folds a chain of two rounds from the stream, and names a round left out', async () => {
    const session = FIXTURE_SESSIONS.bareStringResult;
    const exported = await exportInTwoRounds('-home-user-fixtures-bare-string-result', session);
    const whole = path.join(temporaryFolder(), 'whole.tar.zst');
    await writeArchive(exported, whole);
    const report = await verifyArchive(whole, deep);
    expect([report.problems, report.rounds, report.chains]).toEqual([[], 2, 1]);

    for (const relative of exportFiles(exported).files) fs.chmodSync(path.join(exported, relative), 0o644);
    const [first, second] = roundFiles(path.join(exported, BUNDLE), session).map((file) => `${BUNDLE}/${path.relative(path.join(exported, BUNDLE), file)}`);
    fs.rmSync(path.join(exported, first!));
    const file = await archived(exported);
    expect((await verifyArchive(file, deep)).problems).toEqual([
      { path: second!, what: 'it is round 2, expected 1 (a round is missing before it)' },
      { path: second!, what: expect.stringMatching(/^it names [0-9a-f]{64} as its predecessor, expected none$/) },
      { path: second!, what: 'it reads from landed sequence 2, expected 1 (evidence would be skipped or read twice)' },
    ]);
  });

  it('verifies an export packed by GNU tar the same, whatever the order of its entries', async () => {
    const expected = summary(await verifyArchive(archive, deep));
    const packed = path.join(temporaryFolder(), 'gnu.tar.zst');
    expect(spawnSync('tar', ['--zstd', '-cf', packed, '-C', path.dirname(out), 'export']).status).toBe(0);
    // Bytewise descending: every .sd comes before its landed file, and the rounds before the evidence.
    const reversed = path.join(temporaryFolder(), 'reversed.tar.zst');
    const list = path.join(temporaryFolder(), 'list');
    const names = exportFiles(out).files.map((relative) => `export/${relative}`).sort(compareBytes).reverse();
    expect(names.findIndex((name) => name.endsWith('.sd'))).toBeLessThan(names.findIndex((name) => name.endsWith('.jsonl')));
    fs.writeFileSync(list, `${names.join('\n')}\n`);
    expect(spawnSync('tar', ['--zstd', '-cf', reversed, '-C', path.dirname(out), '--no-recursion', '-T', list]).status).toBe(0);
    for (const file of [packed, reversed]) {
      const report = await verifyArchive(file, deep);
      expect(report.problems).toEqual([]);
      expect(summary(report)).toEqual(expected);
    }
  });

  it('on the command line: exit 0 when intact, 1 with every problem named when not', async () => {
    const good = spawnSync(process.execPath, [launcher, 'verify', archive, '--deep'], { encoding: 'utf8' });
    // Exported without a site, so --deep has no page to render again, which it says.
    expect([good.status, good.stderr]).toEqual([0, 'note: site: the export holds no site, so no page was rendered again to compare\n']);
    expect(good.stdout).toMatch(/^verified archive .*: \d+ files, root digest [0-9a-f]{64}; \d+ landed files, \d+ records in 3 sessions, \d+ rounds in 3 chains, every \.sd derived and every conversation assembled again: all intact\n$/);
    const copy = copyOfExport();
    const { sessionData } = rewindFile(copy);
    fs.appendFileSync(path.join(copy, sessionData), '{"row":99}\n');
    const file = await archived(copy);
    const bad = spawnSync(process.execPath, [launcher, 'verify', file, '--deep'], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(new RegExp(`^error: ${sessionData}: it has \\d+ rows for \\d+ landed records \\(expected one row per record\\)\nerror: ${sessionData}: deriving it again from its landed file gives different bytes, first on line \\d+, row \\d+ \\(expected no more rows, found a line with sha256 [0-9a-f]{64}\\)\nnote: site: .*\n$`));
    expect(bad.stdout).toMatch(/: 2 problems\n$/);
  });
});
