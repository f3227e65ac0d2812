// The audit one click away, in Chromium from file://, at 1280 and 390 px,
// with JavaScript on and off: a step's evidence fold opened on a
// conversation page built from the fixtures, and a `{seq, row}` link in it
// followed, lands on the evidence page at that row. With JavaScript, the
// page's script expands its rows and shows the landed record pretty-printed,
// its anchor at the top of the window and marked as the one linked; without
// it, the row's anchor alone is shown, naming its line in the landed file
// the page links. No request leaves the export, and nothing goes wrong.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FIXTURE_ROOT, FIXTURE_SESSIONS, HOSTILE_MARKUP } from '../../scripts/write-fixtures.ts';
import { verifyExport } from '../../src/verify/export.ts';
import { describeWhere, firstMissing, programMissing } from '../requirements.ts';
import { CHROMIUM, exportWithSite, launch, watchedPage } from './browser.ts';

// The page's globals, inside page.evaluate: the project compiles without the DOM's types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;
declare const location: { hash: string };
declare function getComputedStyle(element: unknown, pseudo: string): { content: string };

const WIDTHS = [1280, 390] as const;

describeWhere(firstMissing(programMissing(CHROMIUM)), 'the evidence pages, as a reader reaches them', () => {
  let out: string;
  let browser: Browser;
  /** The conversation page, and the evidence link on it that has the most rows after its own on its evidence page. */
  let chosen: { page: string; href: string; evidence: string; row: number; after: number };
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    out = await exportWithSite(FIXTURE_ROOT);
    const site = path.join(out, 'site');
    browser = await launch();
    // The links of the evidence folds a reader sees on opening the page: those of steps not inside another fold.
    const looking = await browser.newPage();
    const candidates: { page: string; href: string; evidence: string; row: number; after: number }[] = [];
    for (const name of fs.readdirSync(path.join(site, 'c'))) {
      await looking.goto(pathToFileURL(path.join(site, 'c', name)).href);
      const hrefs: string[] = await looking.evaluate(() => [...document.querySelectorAll('details.ev')].filter((fold: { parentElement: { closest(selector: string): unknown } }) => fold.parentElement.closest('details') === null).flatMap((fold: { querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string }> }) => [...fold.querySelectorAll('a[href*="e/"]')].map((link) => link.getAttribute('href'))));
      for (const href of hrefs) {
        const match = /^\.\.\/(e\/[^#]+)#row-(\d+)$/.exec(href);
        if (!match) continue;
        const evidence = fs.readFileSync(path.join(site, match[1]!), 'utf8');
        const row = Number(match[2]);
        const after = evidence.slice(evidence.indexOf(`id="row-${row}"`)).split('<li id="row-').length - 1;
        candidates.push({ page: path.join(site, 'c', name), href, evidence: path.join(site, match[1]!), row, after });
      }
    }
    await looking.close();
    // A row with rows above it, so that the page must scroll to it, and enough below, so that it can.
    chosen = candidates.filter(({ row }) => row >= 3).sort((a, b) => b.after - a.after)[0]!;
  }, 600_000);
  afterAll(async () => {
    for (const made of contexts) await made.close();
    await browser?.close();
  });

  it('verifies, with the evidence pages in its manifest', async () => {
    expect((await verifyExport(out)).problems).toEqual([]);
    const manifest = fs.readFileSync(path.join(out, 'manifest-sha256.txt'), 'utf8');
    expect(manifest).toContain(`  site/${path.relative(path.join(out, 'site'), chosen.evidence)}\n`);
    expect(chosen.after).toBeGreaterThan(8);
  });

  for (const width of WIDTHS) {
    for (const javaScript of [true, false]) {
      it(`opens a step's evidence at its row at ${width} px with JavaScript ${javaScript ? 'on' : 'off'}`, { timeout: 120_000 }, async () => {
        const { page, requests, errors } = await watchedPage(browser, { javaScript, viewport: { width, height: 800 } });
        contexts.push(page.context());

        await page.goto(pathToFileURL(chosen.page).href);
        // The evidence is off until the page's switch shows it: a link without JavaScript, a switch with it.
        await page.click('.page-tools .evidence-on-link');
        const fold = page.locator('details.ev', { has: page.locator(`a[href="${chosen.href}"]`) }).first();
        await fold.locator('summary').click();
        expect(await fold.evaluate((element: { open: boolean }) => element.open)).toBe(true);
        await Promise.all([page.waitForURL((url) => url.hash === `#row-${chosen.row}`), fold.locator(`a[href="${chosen.href}"]`).first().click()]);
        expect(page.url()).toBe(`${pathToFileURL(chosen.evidence).href}#row-${chosen.row}`);

        if (!javaScript) {
          // The row's anchor alone, naming its line, in view; the landed file a link away.
          const bare = await page.evaluate((row: number) => {
            const target = document.getElementById(`row-${row}`);
            const style = (pseudo: string) => getComputedStyle(target, pseudo).content;
            return {
              targeted: document.querySelector(':target')?.id,
              text: target.textContent,
              words: [style('::before'), style('::after')],
              shown: [...document.querySelectorAll('ol.row-anchors > li')].filter((item: { getBoundingClientRect(): { height: number } }) => item.getBoundingClientRect().height > 0).map((item: { id: string }) => item.id),
              top: target.getBoundingClientRect().top,
              bottom: target.getBoundingClientRect().bottom,
              raw: document.querySelector('.raw a').getAttribute('href'),
              note: document.querySelector('.no-script')?.textContent,
              scrollWidth: document.documentElement.scrollWidth,
            };
          }, chosen.row);
          expect(bare.targeted).toBe(`row-${chosen.row}`);
          expect(bare.shown).toEqual([`row-${chosen.row}`]);
          expect(bare.text).toBe(`line ${chosen.row + 1}`);
          expect(bare.words).toEqual(['"The record linked is on "', '" of the landed file linked above."']);
          expect(bare.top).toBeGreaterThanOrEqual(0);
          expect(bare.bottom).toBeLessThanOrEqual(800);
          expect(bare.note).toContain('Without JavaScript');
          expect(decodeURIComponent(bare.raw)).toBe(`../../bundle/${landedFileOf(chosen.evidence)}`);
          expect(fs.existsSync(path.join(out, 'bundle', landedFileOf(chosen.evidence)))).toBe(true);
          expect(bare.scrollWidth).toBeLessThanOrEqual(width);
          expect(requests.filter((url) => !url.startsWith(`${pathToFileURL(out).href}/`))).toEqual([]);
          expect(errors).toEqual([]);
          return;
        }
        const seen = await page.evaluate((row: number) => {
          const target = document.getElementById(`row-${row}`);
          return {
            hash: location.hash,
            top: target.getBoundingClientRect().top,
            targeted: document.querySelector(':target')?.id,
            label: target.querySelector('.row-label').innerText,
            json: target.querySelector('pre').textContent,
            rows: document.querySelectorAll('ol.evidence-rows > li.evidence-row').length,
            anchors: document.querySelectorAll('ol.evidence-rows > li').length,
            note: document.querySelector('.no-script'),
            scrollWidth: document.documentElement.scrollWidth,
            scrolled: document.scrollingElement.scrollTop,
          };
        }, chosen.row);
        // Every row shown, the note for a reader without JavaScript gone.
        expect(seen.rows).toBe(seen.anchors);
        expect(seen.rows).toBeGreaterThan(chosen.after);
        expect(seen.note).toBeNull();
        // Scrolled to the row: its anchor is at the top of the window.
        expect(seen.scrolled).toBeGreaterThan(0);
        expect(Math.abs(seen.top)).toBeLessThanOrEqual(12);
        expect(seen.targeted).toBe(`row-${chosen.row}`);
        expect(seen.label).toContain(`row ${chosen.row}}`);
        expect(seen.label).toContain(`line ${chosen.row + 1}, `);
        // The record as landed in the bundle, pretty-printed.
        const landed = fs.readFileSync(path.join(out, 'bundle', landedFileOf(chosen.evidence)), 'utf8').split('\n')[chosen.row]!;
        expect(JSON.parse(seen.json)).toEqual(JSON.parse(landed));
        expect(seen.json).toMatch(new RegExp(`^\\{\\n  "ord": \\d+,\\n  "off": \\d+,\\n  "sha": "[0-9a-f]{64}",`));
        expect(seen.json.split('\n').length).toBeGreaterThan(5);
        // Nothing but the row's code scrolls sideways on a phone: nothing does.
        expect(seen.scrollWidth).toBeLessThanOrEqual(width);
        expect(requests.filter((url) => !url.startsWith(`${pathToFileURL(out).href}/`))).toEqual([]);
        expect(errors).toEqual([]);
      });
    }
  }

  it('shows hostile markup in a landed row as text and runs none of it', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const site = path.join(out, 'site');
    const files = fs.readdirSync(path.join(site, 'e')).filter((name) => name.startsWith(`${FIXTURE_SESSIONS.hostileMarkup}--`));
    expect(files.length).toBeGreaterThan(0);
    let text = '';
    for (const name of files) {
      await page.goto(pathToFileURL(path.join(site, 'e', name)).href);
      text += await page.locator('main').innerText();
      expect(await page.evaluate(() => (globalThis as unknown as { __xss?: string }).__xss)).toBeUndefined();
      expect(await page.locator('main script, main img, main svg, main style, main a[href^="javascript:" i]').count()).toBe(0);
      // The rows were shown: the note for a reader without JavaScript is gone.
      expect(await page.locator('.no-script').count()).toBe(0);
    }
    // As the landed JSON holds them: its strings' quotes escaped, nothing else changed.
    for (const hostile of [HOSTILE_MARKUP.prompt, HOSTILE_MARKUP.output]) expect(text).toContain(JSON.stringify(hostile).slice(1, -1));
    expect(errors).toEqual([]);
  });

  /** The landed file an evidence page shows, inside the bundle, as its link to the raw file names it. */
  function landedFileOf(evidence: string): string {
    const raw = /<a href="\.\.\/\.\.\/bundle\/([^"]+)">The landed file/.exec(fs.readFileSync(evidence, 'utf8'))![1]!;
    return decodeURIComponent(raw);
  }
});
