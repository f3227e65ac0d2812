// Images in a redacted export: no rule can read a screenshot for secrets, so
// `--redact` leaves every image out of the exported copy, each replaced by a
// placeholder with its size, and the site says why where it was; with
// `--keep-images` the images stay, and the site shows them. Either way the
// export verifies, shallow and deep, and the site follows from the bundle.

import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONVERTERS, converterFor } from '../../src/adapters/dialects.ts';
import { BUNDLE, exportFiles } from '../../src/bundle/manifest.ts';
import { writeExport } from '../../src/export/export-folder.ts';
import { landedFilesOfSession } from '../../src/landing/session-state.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { REPORT_NAME, type RedactionReport } from '../../src/redaction/report.ts';
import { ruleSet } from '../../src/redaction/rules.ts';
import { MEDIA_LEFT_OUT_SOURCE, scanForSecrets } from '../../src/redaction/scan.ts';
import { verifyExport } from '../../src/verify/export.ts';
import { FIXTURE_IMAGES, FIXTURE_ROOT, FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { collectOnce, landedOf, sessionDataOf, temporaryFolder } from '../helpers.ts';

const launcher = fileURLToPath(new URL('../../src/cli/sessionizer.mjs', import.meta.url));
const session = FIXTURE_SESSIONS.pastedImages;
const sha256 = (bytes: Buffer): string => crypto.createHash('sha256').update(bytes).digest('hex');

let source: string;
let data: string;

/** Every spelling of an image's bytes a file could hold: its base64 (in part, at each alignment), its raw bytes. */
function imageLeaks(root: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const bytes = fs.readFileSync(path.join(entry.parentPath, entry.name));
    for (const [name, image] of Object.entries(FIXTURE_IMAGES)) {
      const middle = image.subarray(image.length / 2, image.length / 2 + 96);
      const spellings = [middle, ...[0, 1, 2].map((shift) => Buffer.from(Buffer.concat([Buffer.alloc(shift), middle]).toString('base64').slice(4, -4)))];
      if (spellings.some((spelling) => bytes.includes(spelling))) found.push(`${path.relative(root, path.join(entry.parentPath, entry.name))}: ${name}`);
    }
  }
  return found;
}

beforeAll(() => {
  source = path.join(temporaryFolder({ forFile: true }), 'projects');
  fs.cpSync(path.join(FIXTURE_ROOT, '-home-user-fixtures-pasted-images'), path.join(source, '-home-user-fixtures-pasted-images'), { recursive: true });
  data = temporaryFolder({ forFile: true });
  collectOnce(source, data);
  parseSession(data, session);
});

describe('a redacted export', () => {
  let out: string;
  beforeAll(async () => {
    const plan = await scanForSecrets(data, [session], { rules: ruleSet(), converterFor });
    out = path.join(temporaryFolder({ forFile: true }), 'export');
    await writeExport(data, out, [session], { redaction: plan });
  }, 300_000);

  it('holds no image, in its bundle, its site or anywhere else, and verifies shallow and deep', async () => {
    expect(imageLeaks(out)).toEqual([]);
    expect(fs.existsSync(path.join(out, 'site', 'images'))).toBe(false);
    expect((await verifyExport(out)).problems).toEqual([]);
    expect((await verifyExport(out, { deep: true, converters: CONVERTERS })).problems).toEqual([]);
    // The storage zone keeps them.
    expect(fs.readFileSync(landedFilesOfSession(data, session)[0]!.path, 'utf8')).toContain(FIXTURE_IMAGES.screenshot.toString('base64'));
  });

  it('replaces each image by a placeholder with the size of its bytes, wherever the record holds it, and its .sd part says it was taken out whole', () => {
    const [main] = landedOf(path.join(out, BUNDLE), session);
    const payloads = main!.records.map((record) => record.payload.toString('utf8'));
    const screenshot = `[redacted:image:${FIXTURE_IMAGES.screenshot.length}]`;
    const diagram = `[redacted:image:${FIXTURE_IMAGES.diagram.length}]`;
    expect(payloads.filter((payload) => payload.includes(`"data":"${screenshot}"`))).toHaveLength(2);
    // The tool's result holds the image twice: in its content, and in the runtime's own record of it.
    const result = payloads.find((payload) => payload.includes(diagram))!;
    expect(result.split(diagram)).toHaveLength(3);
    const record = main!.records.find((entry) => entry.payload.toString('utf8') === result)!;
    expect(record.redacted).toBe(2 * FIXTURE_IMAGES.diagram.toString('base64').length);
    const media = sessionDataOf(main!.path).rows.flatMap((row) => row.parts).filter((part) => part.k === 'media');
    expect(media.map((part) => [part.state, part.bytes, part.removed])).toEqual([
      ['redacted', FIXTURE_IMAGES.screenshot.length, FIXTURE_IMAGES.screenshot.length],
      ['redacted', FIXTURE_IMAGES.screenshot.length, FIXTURE_IMAGES.screenshot.length],
      ['redacted', FIXTURE_IMAGES.diagram.length, FIXTURE_IMAGES.diagram.length],
    ]);
  });

  it('says on the page where each image was, that it was left out, why, and what keeps images', () => {
    const page = fs.readFileSync(path.join(out, 'site', 'c', `${session}.html`), 'utf8');
    expect(page).not.toContain('<img');
    const notes = page.match(/<p class="media-note s-redacted">.*?<\/p>/g) ?? [];
    expect(notes).toHaveLength(3);
    expect(notes[0]).toBe(`<p class="media-note s-redacted"><span class="state">image/png, ${(FIXTURE_IMAGES.screenshot.length / 1024).toFixed(1)} KB: not shown</span>: left out of this redacted export, as no rule can read a screenshot for secrets (an export with --keep-images keeps images)</p>`);
  });

  it('lists each image left out in its report, under the rule image, and says so among its rules', () => {
    const report = JSON.parse(fs.readFileSync(path.join(out, BUNDLE, REPORT_NAME), 'utf8')) as RedactionReport;
    const images = report.findings.filter((finding) => finding.rule === 'image');
    expect(images.map((finding) => [finding.row, finding.part])).toEqual([
      [1, 'part 1 (media)'],
      [3, 'part 1 (media)'],
      // The runtime's copy of the image in the same record is the same medium's.
      [5, 'part 2 (media)'],
      [5, 'part 2 (media)'],
    ]);
    expect(report.rules).toContain(MEDIA_LEFT_OUT_SOURCE);
    expect(exportFiles(out).files).toContain(`${BUNDLE}/${REPORT_NAME}`);
  });
});

describe('a redacted export with --keep-images', () => {
  it('keeps every image, shows it on the site, leaves none out in its report, and verifies', { timeout: 300_000 }, async () => {
    const plan = await scanForSecrets(data, [session], { rules: ruleSet(), converterFor, keepImages: true });
    expect(plan.findings).toEqual([]);
    expect(plan.rules).not.toContain(MEDIA_LEFT_OUT_SOURCE);
    const out = path.join(temporaryFolder(), 'export');
    await writeExport(data, out, [session], { redaction: plan });
    expect(fs.readdirSync(path.join(out, 'site', 'images')).sort()).toEqual([`${sha256(FIXTURE_IMAGES.screenshot)}.png`, `${sha256(FIXTURE_IMAGES.diagram)}.png`].sort());
    expect(fs.readFileSync(path.join(out, 'site', 'c', `${session}.html`), 'utf8')).toContain(`<img src="../images/${sha256(FIXTURE_IMAGES.screenshot)}.png"`);
    expect((await verifyExport(out, { deep: true, converters: CONVERTERS })).problems).toEqual([]);
  });
});

describe('export --keep-images on the command line', () => {
  const sessionizer = (args: string[]) => {
    const result = spawnSync(process.execPath, [launcher, ...args], { encoding: 'utf8' });
    return { code: result.status, out: result.stdout, error: result.stderr };
  };

  it('is refused without --redact, which it only applies to', { timeout: 60_000 }, () => {
    const refused = sessionizer(['export', '--data', data, '--keep-images']);
    expect(refused.code).toBe(2);
    expect(refused.error).toMatch(/--keep-images only applies to --redact/);
  });

  it('is named when --redact leaves images out of an export, which holds none of them', { timeout: 180_000 }, () => {
    const target = path.join(temporaryFolder(), 'export');
    const written = sessionizer(['export', '--source', source, '--data', data, '--out', target, '--conversation', session, '--redact']);
    expect(written.code, written.error).toBe(0);
    expect(written.error).toMatch(/^redaction: 4 findings \([0-9]+ bytes\): 0 secrets and 4 images or documents left out; they are replaced in the export, and listed in its bundle\/redaction-report\.json$/m);
    expect(imageLeaks(target)).toEqual([]);
  });

  it('is what a dry run of --redact says keeps the images it would leave out', { timeout: 120_000 }, () => {
    const target = path.join(temporaryFolder(), 'export');
    const leftOut = sessionizer(['export', '--source', source, '--data', data, '--out', target, '--conversation', session, '--redact', '--dry-run']);
    expect(leftOut.code, leftOut.error).toBe(0);
    expect(leftOut.out).toMatch(/^redaction: 4 findings \([0-9]+ bytes\): 0 secrets and 4 images or documents left out in 3 records of 1 files, 1 conversations\n/);
    expect(leftOut.out).toContain(`rules: `);
    expect(leftOut.out).toContain(MEDIA_LEFT_OUT_SOURCE);
    expect(leftOut.out).toMatch(/row 1 record [0-9a-f-]{36}, part 1 \(media\): image iVBO…\([0-9]+ bytes\)/);
    const kept = sessionizer(['export', '--source', source, '--data', data, '--out', target, '--conversation', session, '--redact', '--keep-images', '--dry-run', '--json']);
    expect(kept.code, kept.error).toBe(0);
    expect((JSON.parse(kept.out) as RedactionReport).totals.findings).toBe(0);
    expect(fs.existsSync(target)).toBe(false);
  });
});
