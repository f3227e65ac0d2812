// The site in a real browser, from file:// and over http: navigation by
// clicking links (index → conversation → branch → child stream and back),
// the text of known prompts and tool outputs on the pages, no console
// errors, no request outside the export folder, hostile markup inert, and the
// same content with JavaScript off. Screenshots of the main views go to
// test/artifacts/ to be looked at.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWhere, programMissing } from '../requirements.ts';
import { FIXTURE_AGENTS, FIXTURE_ROOT, FIXTURE_SESSIONS, HOSTILE_MARKUP } from '../../scripts/write-fixtures.ts';
import { verifyExport } from '../../src/verify/export.ts';
import { PAGE_BUDGET } from '../../src/site/models/page-files.ts';
import { CHROMIUM, exportWithSite, largestPage, launch, searchFor, serve, watchedPage, type Watched } from './browser.ts';

const ARTIFACTS = path.resolve('test', 'artifacts');
const missing = programMissing(CHROMIUM);

describeWhere(missing, 'the static site in Chromium', () => {
  let out: string;
  let browser: Browser;
  let server: Awaited<ReturnType<typeof serve>>;
  const opened: Watched[] = [];

  beforeAll(async () => {
    out = await exportWithSite(FIXTURE_ROOT);
    server = await serve(out);
    browser = await launch();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const bases = (): [string, string][] => [
    ['file', pathToFileURL(out).href],
    ['http', server.url],
  ];
  const open = async (options: { javaScript?: boolean } = {}): Promise<Watched> => {
    const watched = await watchedPage(browser, options);
    opened.push(watched);
    return watched;
  };
  const insideExport = (watched: Watched, base: string): void => {
    expect(watched.requests.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
    expect(watched.errors).toEqual([]);
    expect(watched.dialogs).toEqual([]);
  };

  it('is covered by the manifest, and the export verifies', async () => {
    expect((await verifyExport(out)).problems).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { files: { path: string }[] };
    expect(manifest.files.map((entry) => entry.path)).toContain(`site/c/${FIXTURE_SESSIONS.rewind}.html`);
    // The huge-line fixture's megabyte of output is cut for the page, which stays within its budget.
    expect(largestPage(path.join(out, 'site')).bytes).toBeLessThanOrEqual(PAGE_BUDGET);
  });

  for (const mode of ['file', 'http'] as const) {
    it(`navigates index → conversation → branch and back, from ${mode}`, { timeout: 60_000 }, async () => {
      const base = bases().find(([name]) => name === mode)![1];
      const watched = await open();
      const { page } = watched;
      await page.goto(`${base}/site/index.html`);
      if (mode === 'file') await page.screenshot({ path: path.join(ARTIFACTS, 'site-index.png'), fullPage: true });
      await page.click(`a[href="c/${FIXTURE_SESSIONS.rewind}.html"]`);
      expect(page.url()).toBe(`${base}/site/c/${FIXTURE_SESSIONS.rewind}.html`);
      const active = await page.textContent('main');
      expect(active).toContain('Write a haiku about rain.');
      expect(active).toContain('Actually, make it about snow.');
      // The other branch's talk is not on this page; only the list where it branches names its prompt.
      expect((await page.locator('main .talk').allTextContents()).join(' ')).not.toContain('Make it sadder.');
      // Each branch there is told by its first prompt, the reader's own marked.
      expect(await page.locator('nav.forks [aria-current="page"]').textContent()).toBe('“Actually, make it about snow.” · 1 prompt · the latest branch (you are here)');
      expect(await page.locator('nav.forks a[href*="/b/"]').textContent()).toBe('“Make it sadder.” · 1 prompt');
      await page.click('nav.forks a[href*="/b/"]');
      expect(page.url()).toContain(`/site/b/${FIXTURE_SESSIONS.rewind}--from-`);
      const branch = await page.textContent('main');
      expect(branch).toContain('Make it sadder.');
      expect(branch).toContain('Rain on an empty house.');
      expect(branch).toContain('does not roll back');
      // The history before it branches, folded above the branch's own talks.
      expect(await page.locator('details.shared-history:not([open])').textContent()).toContain('Write a haiku about rain.');
      expect(await page.title()).toBe('Branch: “Make it sadder.” · Write a haiku about rain. · Sessionizer');
      if (mode === 'file') await page.screenshot({ path: path.join(ARTIFACTS, 'site-branch.png'), fullPage: true });
      await page.goBack();
      expect(page.url()).toBe(`${base}/site/c/${FIXTURE_SESSIONS.rewind}.html`);
      await page.click('nav.top a[href="../index.html"]');
      expect(page.url()).toBe(`${base}/site/index.html`);
      insideExport(watched, base);
    });

    it(`navigates a parent call ⇄ its child stream, and shows tool output, from ${mode}`, { timeout: 60_000 }, async () => {
      const base = bases().find(([name]) => name === mode)![1];
      const watched = await open();
      const { page } = watched;
      await page.goto(`${base}/site/index.html`);
      await page.click(`a[href="c/${FIXTURE_SESSIONS.nestedAgents}.html"]`);
      if (mode === 'file') await page.screenshot({ path: path.join(ARTIFACTS, 'site-conversation.png'), fullPage: true });
      await page.click(`.step a[href*="/s/${FIXTURE_SESSIONS.nestedAgents}--${FIXTURE_AGENTS.nestedOuter}"]`);
      expect(page.url()).toContain(`/site/s/${FIXTURE_SESSIONS.nestedAgents}--${FIXTURE_AGENTS.nestedOuter}.html`);
      if (mode === 'file') await page.screenshot({ path: path.join(ARTIFACTS, 'site-child-stream.png'), fullPage: true });
      expect(await page.textContent('header .stream-links')).toBe('A subagent’s transcript, started by the Agent call in the conversation.');
      await page.click('header .stream-links a');
      expect(page.url()).toContain(`/site/c/${FIXTURE_SESSIONS.nestedAgents}.html#n`);
      await page.goto(`${base}/site/c/${FIXTURE_SESSIONS.parallelForked}.html`);
      const text = await page.textContent('main');
      expect(text).toContain('Run the tests and the linter.');
      expect(text).toContain('no lint errors');
      insideExport(watched, base);
    });

    it(`shows hostile markup as text and runs none of it, from ${mode}`, { timeout: 60_000 }, async () => {
      const base = bases().find(([name]) => name === mode)![1];
      const watched = await open();
      const { page } = watched;
      await page.goto(`${base}/site/c/${FIXTURE_SESSIONS.hostileMarkup}.html`);
      const text = await page.textContent('main');
      expect(text).toContain(HOSTILE_MARKUP.prompt);
      expect(text).toContain(HOSTILE_MARKUP.output);
      expect(await page.evaluate(() => (globalThis as unknown as { __xss?: string }).__xss)).toBeUndefined();
      expect(await page.isVisible('main')).toBe(true);
      expect(await page.locator('main script, main img, main svg, main a[href^="javascript:" i]').count()).toBe(0);
      // Markdown: a script link and raw HTML stay text, a remote image is its address as text, a web link stays a link showing its address.
      expect(text).toContain('[run me](javascript:window.__xss=\'markdown\')');
      expect(text).toContain('<a href="javascript:window.__xss=2">raw link</a>');
      expect(text).toContain('[image: tracking pixel] https://remote.invalid/tracker.png');
      expect(await page.locator('main .markdown h2').first().textContent()).toBe('Findings');
      expect(await page.locator('main a[href^="http"]').evaluateAll((links) => links.map((link) => [(link as unknown as { href: string }).href, (link as unknown as { nextElementSibling: { textContent: string } | null }).nextElementSibling?.textContent]))).toEqual([['https://example.invalid/docs', '(https://example.invalid/docs)']]);
      expect(await page.locator('main details[open] > summary:text-is("raw")').count()).toBe(0);
      if (mode === 'file') await page.screenshot({ path: path.join(ARTIFACTS, 'site-hostile.png'), fullPage: true });
      insideExport(watched, base);
    });

    it(`searches every conversation and child stream offline, from ${mode}`, { timeout: 60_000 }, async () => {
      const base = bases().find(([name]) => name === mode)![1];
      const watched = await open();
      const { page } = watched;
      await page.goto(`${base}/site/search.html`);
      await searchFor(page, 'haiku rain');
      expect(await page.locator('#results .hits li').count()).toBeGreaterThan(0);
      await searchFor(page, 'inner child');
      // Hostile markup found by search is shown as text in the snippet, and none of it runs.
      await searchFor(page, 'window.__xss');
      expect(await page.locator('#results .snippet mark').first().textContent()).toBe('window.__xss');
      expect(await page.locator('#results script, #results img, #results svg').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as unknown as { __xss?: string }).__xss)).toBeUndefined();
      await searchFor(page, 'sadder');
      await page.click('#results .hits li a');
      expect(page.url()).toContain(`/site/b/${FIXTURE_SESSIONS.rewind}--from-`);
      insideExport(watched, base);
    });
  }

  it('shows every page’s content with JavaScript off', { timeout: 60_000 }, async () => {
    const base = pathToFileURL(out).href;
    const watched = await open({ javaScript: false });
    const { page } = watched;
    await page.goto(`${base}/site/index.html`);
    expect(await page.locator('#conversations li.conversation').count()).toBe(fs.readdirSync(path.join(out, 'bundle', '_conversations')).length);
    await page.click(`a[href="c/${FIXTURE_SESSIONS.compaction}.html"]`);
    const text = await page.textContent('main');
    expect(text).toContain('And the tests?');
    expect(text).toContain('Compacted automatically: 150k tokens before');
    insideExport(watched, base);
  });
});
