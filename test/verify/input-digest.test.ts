// A round's input digest binds it to the bytes of the landed files it read.
// Each forgery below is made consistent with everything else a verify can
// see: record digests, the `.sd` derived again with the tool's own
// converter, round digests and names, the manifest and the root digest. Only
// computing each round's input digest again from the landed files can tell,
// and every verify mode must: the export folder, the archive and the storage
// zone (the export's bundle, verified as a data folder).

import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { converterFor, CONVERTERS } from '../../src/adapters/dialects.ts';
import { writeArchive } from '../../src/bundle/archive.ts';
import { BUNDLE } from '../../src/bundle/manifest.ts';
import { exportFiles, writeManifest } from '../../src/bundle/manifest.ts';
import { parseRecordLine } from '../../src/landing/landed-file.ts';
import { digestOf } from '../../src/files/digest.ts';
import { landedFilesOfSession } from '../../src/landing/session-state.ts';
import { deriveSessionData } from '../../src/session-data/derive.ts';
import { roundFiles } from '../../src/session-flow/chain.ts';
import { verifyArchive } from '../../src/verify/archive.ts';
import { verifyExport } from '../../src/verify/export.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { exportedFixtures, temporaryFolder } from '../helpers.ts';

const launcher = fileURLToPath(new URL('../../src/cli/sessionizer.mjs', import.meta.url));
const deep = { deep: true, converters: CONVERTERS };
const sha256 = (bytes: Buffer | string): string => crypto.createHash('sha256').update(bytes).digest('hex');

let out: string;
beforeAll(async () => {
  ({ out } = await exportedFixtures([FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.compaction]));
});

function copyOfExport(): string {
  const copy = path.join(temporaryFolder(), 'export');
  fs.cpSync(out, copy, { recursive: true });
  for (const relative of exportFiles(copy).files) fs.chmodSync(path.join(copy, relative), 0o644);
  return copy;
}

/**
 * The forged export verified in all three modes, deep: the problems the
 * folder and the archive report, and the storage zone's exit status and
 * error lines.
 */
async function verifiedEveryWay(copy: string): Promise<{ folder: unknown[]; archive: unknown[]; zone: { status: number | null; errors: string[] } }> {
  writeManifest(copy);
  const file = path.join(temporaryFolder(), 'forged.tar.zst');
  await writeArchive(copy, file);
  const zone = spawnSync(process.execPath, [launcher, 'verify', path.join(copy, BUNDLE), '--deep'], { encoding: 'utf8' });
  return {
    folder: (await verifyExport(copy, deep)).problems,
    archive: (await verifyArchive(file, deep)).problems,
    zone: { status: zone.status, errors: zone.stderr.split('\n').filter((line) => line !== '') },
  };
}

/** The one round of the rewind conversation, relative to the export. */
function rewindRound(copy: string): string {
  const rounds = roundFiles(path.join(copy, BUNDLE), FIXTURE_SESSIONS.rewind);
  expect(rounds).toHaveLength(1);
  return path.relative(copy, rounds[0]!).split(path.sep).join('/');
}

const inputDigestProblem = (round: string) => ({
  path: round,
  what: expect.stringMatching(new RegExp(`^its input digest is [0-9a-f]{64}, but the landed files it covers \\(sequences 1 to \\d+ of session ${FIXTURE_SESSIONS.rewind}\\) give [0-9a-f]{64}$`)),
});

describe("a round's input digest, computed again in every verify mode", () => {
  it('catches a landed record forged with its digest fixed up and its .sd derived again by the tool itself', async () => {
    const copy = copyOfExport();
    const [first] = landedFilesOfSession(path.join(copy, BUNDLE), FIXTURE_SESSIONS.rewind);
    const landed = first!.path;
    const lines = fs.readFileSync(landed, 'utf8').split('\n');
    const position = lines.findIndex((line) => line.includes('Rain on the tin roof.'));
    expect(position).toBeGreaterThan(0);
    const forged = Buffer.from(lines[position]!.replace('Rain on the tin roof.', 'Snow on the tin roof.'));
    lines[position] = forged.toString('utf8').replace(parseRecordLine(forged).sha, digestOf(parseRecordLine(forged).payload));
    fs.writeFileSync(landed, lines.join('\n'));
    const dialect = (JSON.parse(fs.readFileSync(landed.replace(/\.jsonl$/, '.sd'), 'utf8').split('\n')[0]!) as { dialect: string }).dialect;
    deriveSessionData(landed, converterFor(dialect)!);
    const round = rewindRound(copy);

    const { folder, archive, zone } = await verifiedEveryWay(copy);
    expect(folder).toEqual([inputDigestProblem(round)]);
    expect(archive).toEqual(folder);
    expect(zone.status).toBe(1);
    expect(zone.errors).toEqual([expect.stringMatching(new RegExp(`^error: ${round.slice(BUNDLE.length + 1)}: its input digest is [0-9a-f]{64}, but the landed files it covers`))]);
  });

  it('catches a round whose input digest was zeroed, with its commit digest, its name and the manifest made anew', async () => {
    const copy = copyOfExport();
    const original = rewindRound(copy);
    const lines = fs.readFileSync(path.join(copy, original), 'utf8').trimEnd().split('\n');
    const header = JSON.parse(lines[0]!) as { input_digest: string };
    lines[0] = lines[0]!.replace(header.input_digest, '0'.repeat(64));
    const body = lines.slice(0, -1).map((line) => `${line}\n`).join('');
    const digest = sha256(body);
    const commit = JSON.parse(lines.at(-1)!) as { digest: string };
    fs.rmSync(path.join(copy, original));
    const round = `${path.posix.dirname(original)}/r000001-${digest.slice(0, 12)}.sf`;
    fs.writeFileSync(path.join(copy, round), `${body}${lines.at(-1)!.replace(commit.digest, digest)}\n`);

    const { folder, archive, zone } = await verifiedEveryWay(copy);
    const expected = [{ path: round, what: `its input digest is ${'0'.repeat(64)}, but the landed files it covers (sequences 1 to ${JSON.parse(lines[0]!).through_seq} of session ${FIXTURE_SESSIONS.rewind}) give ${header.input_digest}` }];
    expect(folder).toEqual(expected);
    expect(archive).toEqual(expected);
    expect(zone).toEqual({ status: 1, errors: [`error: ${round.slice(BUNDLE.length + 1)}: ${expected[0]!.what}`] });
  });
});
