// Images on the site: files of the site named by the SHA-256 of their bytes,
// written once however many times and in however many conversations they
// are used, covered by the manifest, the same bytes from a warm cache; and
// in Chromium, from file:// with JavaScript on and off, at 1280 and 390 px,
// a pasted PNG shown (loaded, lazy, within the column, linked to its file at
// full size), and an SVG or a page of HTML labelled image/png never shown as
// an image nor run.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageDataBlock, textBlock, Transcript } from '../../scripts/claude-code-records.ts';
import { DISGUISED_IMAGES, FIXTURE_IMAGES, FIXTURE_ROOT, FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { storedSessions } from '../../src/landing/session-folder.ts';
import { writeExport } from '../../src/export/export-folder.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { CONTENT_SECURITY_POLICY } from '../../src/site/models/content-security.ts';
import { verifyExport } from '../../src/verify/export.ts';
import { collectOnce, temporaryFolder } from '../helpers.ts';
import { describeWhere, programMissing } from '../requirements.ts';
import { CHROMIUM, launch, watchedPage, type Watched } from './browser.ts';

const sha256 = (bytes: Buffer): string => crypto.createHash('sha256').update(bytes).digest('hex');
const screenshotFile = `images/${sha256(FIXTURE_IMAGES.screenshot)}.png`;
const diagramFile = `images/${sha256(FIXTURE_IMAGES.diagram)}.png`;
const ARTIFACTS = path.resolve('test', 'artifacts');

/** A projects tree of the two image fixtures alone, and, when `other` is given, a second conversation that pastes the same screenshot. */
function imageTree(other?: Transcript): string {
  const root = path.join(temporaryFolder({ forFile: true }), 'projects');
  for (const folder of ['-home-user-fixtures-pasted-images', '-home-user-fixtures-disguised-images']) fs.cpSync(path.join(FIXTURE_ROOT, folder), path.join(root, folder), { recursive: true });
  if (other) {
    fs.mkdirSync(path.join(root, '-home-user-other'), { recursive: true });
    fs.writeFileSync(path.join(root, '-home-user-other', `${other.options.session}.jsonl`), other.text());
  }
  return root;
}

async function exported(data: string, root: string): Promise<{ out: string; rootDigest: string }> {
  collectOnce(root, data);
  for (const session of storedSessions(data)) parseSession(data, session);
  const out = path.join(temporaryFolder({ forFile: true }), 'export');
  const result = await writeExport(data, out, storedSessions(data), { siteCache: path.join(data, '_site-cache') });
  return { out, rootDigest: result.rootDigest };
}

function imageFiles(out: string): string[] {
  const folder = path.join(out, 'site', 'images');
  return fs.existsSync(folder) ? fs.readdirSync(folder).map((name) => `images/${name}`).sort() : [];
}

describe('the image files of a site', () => {
  const otherSession = '7d1f0c2e-4b5a-4c3d-9e8f-0a1b2c3d4e5f';
  const other = new Transcript({ session: otherSession });
  other.prompt([imageDataBlock('image/png', FIXTURE_IMAGES.screenshot), textBlock('The same screenshot, in another conversation.')]);
  other.call([textBlock('It is the one from before.')]);
  let root: string;
  let data: string;
  let first: { out: string; rootDigest: string };

  beforeAll(async () => {
    root = imageTree(other);
    data = temporaryFolder({ forFile: true });
    first = await exported(data, root);
  }, 300_000);

  it('are the images shown, each once, named by its bytes, covered by the manifest, and the export verifies', async () => {
    const { out } = first;
    // Three conversations use the screenshot four times; the disguised payloads are no file.
    expect(imageFiles(out)).toEqual([screenshotFile, diagramFile].sort());
    expect(fs.readFileSync(path.join(out, 'site', screenshotFile)).equals(FIXTURE_IMAGES.screenshot)).toBe(true);
    expect(fs.readFileSync(path.join(out, 'site', diagramFile)).equals(FIXTURE_IMAGES.diagram)).toBe(true);
    const manifest = fs.readFileSync(path.join(out, 'manifest-sha256.txt'), 'utf8');
    expect(manifest).toContain(`${sha256(FIXTURE_IMAGES.screenshot)}  site/${screenshotFile}\n`);
    expect(manifest.split(`site/${screenshotFile}`)).toHaveLength(2);
    expect((await verifyExport(out)).problems).toEqual([]);
    for (const session of [FIXTURE_SESSIONS.pastedImages, otherSession]) expect(fs.readFileSync(path.join(out, 'site', 'c', `${session}.html`), 'utf8')).toContain(`src="../${screenshotFile}"`);
  });

  it('are placed from the cache of finished pages by the next export, two conversations holding the same file, with the same bytes', { timeout: 300_000 }, async () => {
    const out = path.join(temporaryFolder({ forFile: true }), 'export');
    const again = await writeExport(data, out, storedSessions(data), { siteCache: path.join(data, '_site-cache') });
    expect(again.site?.built).toBe(0);
    expect(again.rootDigest).toBe(first.rootDigest);
    expect(imageFiles(out)).toEqual(imageFiles(first.out));
    expect((await verifyExport(out)).problems).toEqual([]);
  });

  it('are written again for a conversation that changed, beside the same file placed for one that did not', { timeout: 300_000 }, async () => {
    other.prompt('And one more question, with no image.');
    other.call([textBlock('Answered.')]);
    fs.writeFileSync(path.join(root, '-home-user-other', `${otherSession}.jsonl`), other.text());
    const { out, rootDigest } = await exported(data, root);
    expect(rootDigest).not.toBe(first.rootDigest);
    expect(imageFiles(out)).toEqual(imageFiles(first.out));
    expect(fs.readFileSync(path.join(out, 'site', screenshotFile)).equals(FIXTURE_IMAGES.screenshot)).toBe(true);
    expect((await verifyExport(out)).problems).toEqual([]);
  });
});

describeWhere(programMissing(CHROMIUM), 'images on the site in Chromium', () => {
  let out: string;
  let browser: Browser;
  const pages: Watched[] = [];

  beforeAll(async () => {
    ({ out } = await exported(temporaryFolder({ forFile: true }), imageTree()));
    browser = await launch();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
  });

  const open = async (width: number, javaScript: boolean): Promise<Watched> => {
    const watched = await watchedPage(browser, { javaScript, viewport: { width, height: 900 } });
    pages.push(watched);
    return watched;
  };
  const insideExport = (watched: Watched): void => {
    const base = pathToFileURL(out).href;
    expect(watched.requests.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
    expect(watched.errors).toEqual([]);
    expect(watched.dialogs).toEqual([]);
  };

  it('allows the site’s own image files in its content security policy', () => {
    expect(CONTENT_SECURITY_POLICY).toMatch(/(?:^|; )img-src 'self'/);
  });

  for (const width of [1280, 390]) {
    for (const javaScript of [true, false]) {
      it(`shows a pasted PNG, lazily, within the column, linked to its file at full size, at ${width} px from file:// with JavaScript ${javaScript ? 'on' : 'off'}`, { timeout: 60_000 }, async () => {
        const watched = await open(width, javaScript);
        const { page } = watched;
        const url = `${pathToFileURL(out).href}/site/c/${FIXTURE_SESSIONS.pastedImages}.html`;
        await page.goto(url);
        const images = page.locator(`main img[src="../${screenshotFile}"]`);
        expect(await images.count()).toBe(2);
        const first = images.first();
        expect(await first.getAttribute('loading')).toBe('lazy');
        expect(await first.getAttribute('decoding')).toBe('async');
        expect(await first.getAttribute('alt')).toMatch(/^Image pasted in the prompt, image\/png, [0-9.]+ KB$/);
        // Its room is kept from its width and height before it loads: the ratio of the screenshot, 1200 by 700.
        await first.scrollIntoViewIfNeeded();
        await page.waitForFunction((image) => (image as unknown as { complete: boolean; naturalWidth: number }).complete && (image as unknown as { naturalWidth: number }).naturalWidth > 0, await first.elementHandle(), { timeout: 10_000 });
        const shown = await first.evaluate((image) => {
          const element = image as unknown as { naturalWidth: number; naturalHeight: number; getBoundingClientRect(): { width: number; height: number }; closest(selector: string): { getBoundingClientRect(): { width: number } } | null };
          const box = element.getBoundingClientRect();
          return { natural: [element.naturalWidth, element.naturalHeight], width: box.width, height: box.height, column: element.closest('.msg')!.getBoundingClientRect().width };
        });
        expect(shown.natural).toEqual([1200, 700]);
        expect(shown.width).toBeGreaterThan(0);
        expect(shown.width).toBeLessThan(shown.column);
        expect(Math.abs(shown.height / shown.width - 700 / 1200)).toBeLessThan(0.01);
        // Nothing but code scrolls sideways.
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth, innerWidth: (globalThis as unknown as { innerWidth: number }).innerWidth }));
        expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
        if (javaScript) await page.screenshot({ path: path.join(ARTIFACTS, `site-images-${width}.png`), fullPage: true });
        // The image a tool returned is in its card, folded: shown when the card is opened.
        await page.click('details.tool > summary');
        const returned = page.locator(`main details.tool img[src="../${diagramFile}"]`);
        await returned.scrollIntoViewIfNeeded();
        await page.waitForFunction((image) => (image as unknown as { naturalWidth: number }).naturalWidth > 0, await returned.elementHandle(), { timeout: 10_000 });
        expect(await returned.getAttribute('alt')).toMatch(/^Image returned by the tool, image\/png, /);
        // A click opens the image at full size, a file of the site.
        await first.click();
        await page.waitForURL(/\.png$/);
        expect(page.url()).toBe(`${pathToFileURL(out).href}/site/${screenshotFile}`);
        insideExport(watched);
      });
    }

    it(`never shows an SVG or a page of HTML labelled image/png as an image, says why, and runs nothing, at ${width} px`, { timeout: 60_000 }, async () => {
      const watched = await open(width, true);
      const { page } = watched;
      await page.goto(`${pathToFileURL(out).href}/site/c/${FIXTURE_SESSIONS.disguisedImages}.html`);
      expect(await page.locator('main img, main svg, main object, main embed, main iframe').count()).toBe(0);
      const notes = await page.locator('main .media-note').allTextContents();
      expect(notes).toHaveLength(3);
      expect(notes[0]).toMatch(/^image\/png, [0-9.]+ B: not shown: its bytes are not a PNG image but markup \(HTML, SVG or XML\)$/);
      expect(notes[1]).toMatch(/^image\/png, [0-9.]+ B: not shown: its bytes are not a PNG image but markup/);
      expect(notes[2]).toMatch(/^image\/svg\+xml, [0-9.]+ B: not shown: an SVG image is a document that can hold scripts/);
      expect(await page.evaluate(() => (globalThis as unknown as { __xss?: string }).__xss)).toBeUndefined();
      // No file of the site holds the payloads.
      for (const name of imageFiles(out)) {
        const bytes = fs.readFileSync(path.join(out, 'site', name));
        expect(bytes.includes(DISGUISED_IMAGES.svg) || bytes.includes(DISGUISED_IMAGES.html)).toBe(false);
      }
      expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      insideExport(watched);
    });
  }
});
