// A file of the export folder edited in place, with its size and modification
// time put back, is never linked into the next export as it was: the reuse
// stamp holds the change time, which no one can set back, and a record of
// stamps allows it to have moved only until the earlier export was removed.
// The next export is whole and verifies, and so does every one after it.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { compareStamps, settledMarkerOf, settledTime, stampFromText, stampOf } from '../../src/files/file-stamp.ts';
import { EarlierExports, writeExport } from '../../src/export/export-folder.ts';
import { landedFilesOfSession } from '../../src/landing/session-state.ts';
import { verifyExport } from '../../src/verify/export.ts';
import { parsedFixtures, temporaryFolder } from '../helpers.ts';

/** Changes one byte of `file` where it is, keeping its size, and puts its modification time back to the nanosecond. */
function editInPlace(file: string): void {
  const before = fs.statSync(file, { bigint: true });
  fs.chmodSync(file, 0o644);
  const bytes = fs.readFileSync(file);
  const at = bytes.lastIndexOf('"'.charCodeAt(0)) - 1;
  const descriptor = fs.openSync(file, 'r+');
  fs.writeSync(descriptor, Buffer.from([bytes[at] === 0x41 ? 0x42 : 0x41]), 0, 1, at);
  fs.closeSync(descriptor);
  const seconds = before.mtimeNs / 1_000_000_000n;
  const nanoseconds = String(before.mtimeNs % 1_000_000_000n).padStart(9, '0');
  expect(spawnSync('touch', ['-m', '-d', `@${seconds}.${nanoseconds}`, file]).status).toBe(0);
  const after = fs.statSync(file, { bigint: true });
  expect([after.size, after.mtimeNs, after.ino]).toEqual([before.size, before.mtimeNs, before.ino]);
}

describe('an export after a file of the one before was edited in place', () => {
  it('copies or renders that file again, and the export and the next one verify', { timeout: 240_000 }, async () => {
    const sessions = [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.bareStringResult];
    const { data } = parsedFixtures(sessions);
    const out = path.join(temporaryFolder(), 'export');
    const first = await writeExport(data, out, sessions);
    // A second export links the first one's files, as every later export does;
    // the command ends once the export it replaced is removed.
    const earlier = new EarlierExports();
    await writeExport(data, out, sessions, { earlier });
    expect(await earlier.removed()).toEqual([]);
    // The site's cache records the stamps of its kept pages as they were
    // kept, settled once the earlier export is gone: the change time the
    // links and the removal moved is allowed for, so that the next export
    // need not read the pages to trust them.
    const page = path.join(out, 'site', 'c', `${FIXTURE_SESSIONS.rewind}.html`);
    const stamps = path.join(data, '_site-cache', 'page-stamps');
    const recorded = stampFromText(fs.readFileSync(stamps, 'utf8').split('\n').find((line) => line.endsWith(`/c/${FIXTURE_SESSIONS.rewind}.html`))!.split(' ')[0]!);
    expect(compareStamps(stampOf(page), recorded)).toBe('change time only');
    expect(compareStamps(stampOf(page), recorded, settledTime(settledMarkerOf(stamps)))).toBe('same');

    const landed = path.join(out, 'bundle', FIXTURE_SESSIONS.rewind, landedFilesOfSession(data, FIXTURE_SESSIONS.rewind)[0]!.relative);
    editInPlace(landed);
    editInPlace(path.join(out, 'site', 'c', `${FIXTURE_SESSIONS.rewind}.html`));

    const repaired = await writeExport(data, out, sessions);
    expect(repaired.copied).toBeGreaterThanOrEqual(1);
    expect(repaired.site!.built).toBeGreaterThan(0);
    expect((await verifyExport(out, {})).problems).toEqual([]);
    expect(repaired.rootDigest).toBe(first.rootDigest);
    const after = await writeExport(data, out, sessions);
    expect([after.site!.built, after.rootDigest]).toEqual([0, first.rootDigest]);
    expect((await verifyExport(out, {})).problems).toEqual([]);
  });
});

describe('an export after one whose earlier export was never removed to the end', () => {
  it('trusts no change time its records did not settle: it copies and checks again, and verifies', { timeout: 240_000 }, async () => {
    const sessions = [FIXTURE_SESSIONS.rewind];
    const { data } = parsedFixtures(sessions);
    const out = path.join(temporaryFolder(), 'export');
    const first = await writeExport(data, out, sessions);
    const earlier = new EarlierExports();
    const second = await writeExport(data, out, sessions, { earlier });
    expect(await earlier.removed()).toEqual([]);
    expect(second.reused).toBeGreaterThan(0);
    // As a process ended between the swap and the end of the removal leaves them: saved, never settled.
    const markers = fs.readdirSync(data, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.settled'));
    expect(markers.length).toBe(2);
    for (const marker of markers) fs.rmSync(path.join(data, marker));

    const third = await writeExport(data, out, sessions);
    expect([third.reused, third.copied]).toEqual([0, second.reused + second.copied]);
    expect(third.rootDigest).toBe(first.rootDigest);
    expect((await verifyExport(out, {})).problems).toEqual([]);
    // Its own records were settled: the one after it links everything again.
    const fourth = await writeExport(data, out, sessions);
    expect([fourth.copied, fourth.site!.built]).toEqual([0, 0]);
  });
});
