// `verify --deep` proves the site: it renders the site again from the bundle
// alone and compares every file with the export's. Each forgery below is
// resealed (manifest.json, manifest-sha256.txt and root-digest.txt made
// anew), so that the verify without --deep passes it and only rendering
// again can see it; each is verified as a folder and as the `.tar.zst` our
// archiver packs of it.

import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/adapters/dialects.ts';
import { writeArchive } from '../../src/bundle/archive.ts';
import { exportFiles, MANIFEST, PLAIN_MANIFEST, ROOT_DIGEST, writeManifest, type Manifest } from '../../src/bundle/manifest.ts';
import { verifyArchive } from '../../src/verify/archive.ts';
import { verifyExport } from '../../src/verify/export.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { sessionizer } from '../cli/launcher.ts';
import { exportedSessions, temporaryFolder } from '../helpers.ts';

const deep = { deep: true, converters: CONVERTERS };
const rewindPage = `site/c/${FIXTURE_SESSIONS.rewind}.html`;
const nestedPage = `site/c/${FIXTURE_SESSIONS.nestedAgents}.html`;
/** Each forgery below renders the site again twice, as a folder and as an archive. */
const TIMEOUT = 120_000;

let out: string;
let archive: string;
beforeAll(async () => {
  out = await exportedSessions([FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.nestedAgents]);
  archive = path.join(temporaryFolder({ forFile: true }), 'export.tar.zst');
  await writeArchive(out, archive);
}, TIMEOUT);

/**
 * A copy of the export, named `export` like the original, changed by
 * `forge` and resealed: its manifest, plain manifest and root digest made
 * anew over what it then holds. Returns the folder and its archive.
 */
async function forged(forge: (copy: string) => void): Promise<{ folder: string; archive: string }> {
  const folder = path.join(temporaryFolder(), 'export');
  fs.cpSync(out, folder, { recursive: true });
  for (const relative of exportFiles(folder).files) fs.chmodSync(path.join(folder, relative), 0o644);
  const before = fs.readFileSync(path.join(folder, ROOT_DIGEST), 'utf8');
  forge(folder);
  writeManifest(folder);
  // Resealed: all three files are made anew, and say the same as each other.
  expect(fs.readFileSync(path.join(folder, ROOT_DIGEST), 'utf8')).not.toBe(before);
  const manifest = JSON.parse(fs.readFileSync(path.join(folder, MANIFEST), 'utf8')) as Manifest;
  expect(fs.readFileSync(path.join(folder, PLAIN_MANIFEST), 'utf8')).toBe(manifest.files.map((entry) => `${entry.sha256}  ${entry.path}\n`).join(''));
  const file = path.join(temporaryFolder(), 'forged.tar.zst');
  await writeArchive(folder, file);
  return { folder, archive: file };
}

/** The problems of the folder and of the archive: first without --deep, which must find none, then with it. */
async function deepProblems(forgery: { folder: string; archive: string }): Promise<{ folder: unknown[]; archive: unknown[] }> {
  expect((await verifyExport(forgery.folder)).problems).toEqual([]);
  expect((await verifyArchive(forgery.archive)).problems).toEqual([]);
  return { folder: (await verifyExport(forgery.folder, deep)).problems, archive: (await verifyArchive(forgery.archive, deep)).problems };
}

const sha256 = (bytes: Buffer): string => crypto.createHash('sha256').update(bytes).digest('hex');

/** The problem of a file of the export that is not what the bundle renders. */
function differs(relative: string, bytes: Buffer, rendered: Buffer): { path: string; what: string } {
  return { path: relative, what: `not what the bundle renders: its SHA-256 is ${sha256(bytes)} (${bytes.length} bytes), the bundle renders ${sha256(rendered)} (${rendered.length} bytes)` };
}

describe('verify --deep of an export’s site', () => {
  it('passes an export and its archive as they were exported, every site file rendered again and compared', { timeout: TIMEOUT }, async () => {
    const siteFiles = exportFiles(path.join(out, 'site')).files.length;
    expect(siteFiles).toBeGreaterThan(10);
    const folder = await verifyExport(out, deep);
    const stream = await verifyArchive(archive, deep);
    expect(folder.problems).toEqual([]);
    expect(stream.problems).toEqual([]);
    expect(folder.siteFiles).toBe(siteFiles);
    expect(stream.siteFiles).toBe(siteFiles);
    for (const target of [out, archive]) {
      const run = sessionizer(['verify', target, '--deep']);
      expect(run.code, run.error).toBe(0);
      expect(run.out).toContain(`the site's ${siteFiles} files rendered again: all intact`);
    }
  });

  it('names a page rewritten to say the opposite of the bundle, and exits 1, as a folder and as an archive', { timeout: TIMEOUT }, async () => {
    const original = fs.readFileSync(path.join(out, rewindPage));
    expect(original.toString('utf8')).toContain('Rain on the tin roof.');
    let forgedPage = Buffer.alloc(0);
    const forgery = await forged((copy) => {
      forgedPage = Buffer.from(original.toString('utf8').replaceAll('Rain on the tin roof.', 'Not a drop of rain fell.'));
      fs.writeFileSync(path.join(copy, rewindPage), forgedPage);
    });
    const expected = [differs(rewindPage, forgedPage, original)];
    expect(await deepProblems(forgery)).toEqual({ folder: expected, archive: expected });
    for (const target of [forgery.folder, forgery.archive]) {
      const run = sessionizer(['verify', target, '--deep']);
      expect(run.code).toBe(1);
      expect(run.error).toBe(`error: ${expected[0]!.path}: ${expected[0]!.what}\n`);
      expect(run.out).toMatch(/: 1 problem\n$/);
    }
  });

  it('names a page added that the bundle does not render', { timeout: TIMEOUT }, async () => {
    const extra = 'site/c/forged-conversation.html';
    const forgery = await forged((copy) => fs.copyFileSync(path.join(copy, rewindPage), path.join(copy, extra)));
    const expected = [{ path: extra, what: 'the bundle renders no such file: the site holds what its bundle does not say' }];
    expect(await deepProblems(forgery)).toEqual({ folder: expected, archive: expected });
  });

  it('names a page removed that the bundle renders', { timeout: TIMEOUT }, async () => {
    const removed = fs.readFileSync(path.join(out, nestedPage));
    const forgery = await forged((copy) => fs.rmSync(path.join(copy, nestedPage)));
    const expected = [{ path: nestedPage, what: `missing: the bundle renders it (${removed.length} bytes, sha256 ${sha256(removed)})` }];
    expect(await deepProblems(forgery)).toEqual({ folder: expected, archive: expected });
  });

  it('names a script and a style sheet of the site changed', { timeout: TIMEOUT }, async () => {
    const changes = ['site/page.js', 'site/site.css'].map((relative) => {
      const original = fs.readFileSync(path.join(out, relative));
      return { relative, original, changed: Buffer.concat([original, Buffer.from(relative.endsWith('.js') ? '\ndocument.title = "forged";\n' : '\nbody { display: none; }\n')]) };
    });
    const forgery = await forged((copy) => {
      for (const { relative, changed } of changes) fs.writeFileSync(path.join(copy, relative), changed);
    });
    const expected = changes.map(({ relative, original, changed }) => differs(relative, changed, original));
    expect(await deepProblems(forgery)).toEqual({ folder: expected, archive: expected });
  });

  it('says in one line that the site cannot be rendered from a bundle, as a folder and as an archive GNU tar packed', { timeout: TIMEOUT }, async () => {
    const folder = path.join(temporaryFolder(), 'export');
    fs.cpSync(out, folder, { recursive: true });
    // A folder holds no bytes, so no digest covers it: the verify without --deep passes.
    fs.mkdirSync(path.join(folder, 'bundle', '_conversations', 'no-rounds'));
    const file = path.join(temporaryFolder(), 'packed.tar.zst');
    expect(spawnSync('tar', ['--zstd', '-cf', file, '-C', path.dirname(folder), 'export']).status).toBe(0);
    expect((await verifyExport(folder)).problems).toEqual([]);
    expect((await verifyArchive(file)).problems).toEqual([]);
    const expected = [{ path: 'site', what: 'the site could not be rendered again from the bundle to compare: bundle/_conversations/no-rounds: the conversation has no rounds' }];
    expect((await verifyExport(folder, deep)).problems).toEqual(expected);
    expect((await verifyArchive(file, deep)).problems).toEqual(expected);
  });

  it('notes an export with no site, as a folder and as an archive, with nothing to render again', { timeout: TIMEOUT }, async () => {
    const siteless = await exportedSessions([FIXTURE_SESSIONS.rewind], { site: false });
    const file = path.join(temporaryFolder(), 'siteless.tar.zst');
    await writeArchive(siteless, file);
    const note = { path: 'site', what: 'the export holds no site, so no page was rendered again to compare' };
    for (const report of [await verifyExport(siteless, deep), await verifyArchive(file, deep)]) {
      expect(report.problems).toEqual([]);
      expect(report.notes).toEqual([note]);
      expect(report.siteFiles).toBe(0);
    }
  });
});
