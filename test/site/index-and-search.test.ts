// The index and search pages of the real public transcripts in
// ../shared/corpus, in Chromium from file://, at 1280 and 390 px, with
// JavaScript on and off: conversations grouped by project, newest first, no
// sideways scrolling on a phone, the filter, and search finding words from
// deep inside a long reply, a tool's input and a tool's output, each word
// chosen from the bundle, checked to be on its built page, and found by
// search.html?q= with a link that lands on its step with the word marked.

import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConversation } from '../../src/site/models/bundle.ts';
import { conversationsOfBundle } from '../../src/bundle/manifest.ts';
import { planConversation } from '../../src/site/models/plan.ts';
import { partsOfStep } from '../../src/site/models/row-outline.ts';
import type { SearchScriptData } from '../../src/site/models/search-text.ts';
import { conversationStructure } from '../../src/site/models/streams.ts';
import type { StepView } from '../../src/site/models/views.ts';
import { describeWhere, filesMissing, firstMissing, programMissing } from '../requirements.ts';
import { CHROMIUM, exportWithSite, launch, searchSettled, watchedPage, type Watched } from './browser.ts';

const repository = fileURLToPath(new URL('../..', import.meta.url));
const corpus = path.resolve(repository, '..', 'shared', 'corpus');
const trees = [path.join(corpus, 'claude-code-log', 'test', 'test_data', 'real_projects'), path.join(corpus, 'spotter', 'test', 'fixtures')];
const missing = firstMissing(filesMissing(...trees), programMissing(CHROMIUM));
const ARTIFACTS = path.resolve('test', 'artifacts');
const WIDTHS = [1280, 390] as const;

/** A word a search must find, and the step it is in. */
interface Sought {
  readonly what: string;
  readonly word: string;
  /** The step's page and anchor, from the site root. */
  readonly target: string;
}

describeWhere(missing, 'the index and search of ../shared/corpus', () => {
  let out: string;
  let base: string;
  let browser: Browser;
  let sought: Sought[];
  beforeAll(async () => {
    out = await exportWithSite(...trees);
    base = `${pathToFileURL(out).href}/site`;
    browser = await launch();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    sought = wordsToSeek(path.join(out, 'bundle'), path.join(out, 'site'));
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
  });

  const open = async (width: number, javaScript = true): Promise<Watched> => {
    const watched = await watchedPage(browser, { javaScript });
    await watched.page.setViewportSize({ width, height: 900 });
    return watched;
  };
  const clean = (watched: Watched): void => {
    expect(watched.requests.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
    expect(watched.errors).toEqual([]);
    expect(watched.dialogs).toEqual([]);
  };
  const sideways = (page: Page): Promise<number> =>
    page.evaluate(() => {
      const { documentElement } = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
      return documentElement.scrollWidth - documentElement.clientWidth;
    });

  for (const width of WIDTHS) {
    for (const javaScript of [true, false]) {
      it(`groups every conversation by project, newest first, with no sideways scroll, at ${width} px with JavaScript ${javaScript ? 'on' : 'off'}`, { timeout: 120_000 }, async () => {
        const watched = await open(width, javaScript);
        const { page } = watched;
        await page.goto(`${base}/index.html`);
        await page.screenshot({ path: path.join(ARTIFACTS, `index-${width}${javaScript ? '' : '-no-script'}.png`) });
        expect(await sideways(page)).toBe(0);
        const sections = await page.$$eval('#conversations section.project', (elements) =>
          elements.map((section) => ({
            project: section.querySelector('h2 .project-path')!.textContent!,
            starts: [...section.querySelectorAll('li.conversation')].map((row) => row.querySelector('time')?.getAttribute('datetime') ?? ''),
            lists: [...section.querySelectorAll('ol.rows')].map((list) => [...list.querySelectorAll('li.conversation')].map((row) => row.querySelector('time')?.getAttribute('datetime') ?? '')),
            // A row is on show unless it is in a closed fold of sessions with no prompt, whose summary is then on show.
            visible: [...section.querySelectorAll('li.conversation')].every((row) => row.getBoundingClientRect().height > 0 || (row.closest('details:not([open])')?.querySelector('summary')?.getBoundingClientRect().height ?? 0) > 0),
            // The sessions with no prompt of their own are the folded ones, and they alone say no turn.
            foldedWithTurns: section.querySelectorAll('details.without-turns li.conversation .turns').length,
            unfoldedWithoutTurns: [...section.querySelectorAll(':scope > ol.rows > li.conversation')].filter((row) => row.querySelector('.turns') === null).length,
          })),
        );
        expect(sections.reduce((sum, section) => sum + section.starts.length, 0)).toBe(conversationsOfBundle(path.join(out, 'bundle')).length);
        expect(new Set(sections.map((section) => section.project)).size).toBe(sections.length);
        expect(sections.length).toBeGreaterThan(1);
        expect(sections.every((section) => section.visible)).toBe(true);
        // Newest first: each project's conversations by start, and the projects by their newest.
        for (const { lists } of sections) for (const starts of lists) expect(starts.filter(Boolean)).toEqual(starts.filter(Boolean).sort().reverse());
        expect(sections.filter((section) => section.foldedWithTurns > 0 || section.unfoldedWithoutTurns > 0)).toEqual([]);
        // One project, one section: a folder's name read back as a path (every '-' a '/') is never shown beside the path its records name.
        const letters = sections.map((section) => section.project.replace(/[^A-Za-z0-9]/g, ''));
        expect(letters.filter((name, at) => letters.indexOf(name) !== at)).toEqual([]);
        const newest = sections.map(({ starts }) => starts.filter(Boolean).sort().at(-1) ?? '').filter(Boolean);
        expect(newest).toEqual([...newest].sort().reverse());
        // Tokens are a count or an em dash, never a zero.
        const tokens = await page.$$eval('li.conversation .tokens', (elements) => elements.map((element) => element.textContent!));
        expect(tokens.filter((text) => !/^(≥ )?[0-9.]+[kM]? tokens$|^no token counts$/.test(text) || /^0 /.test(text))).toEqual([]);
        // A title takes at most two lines.
        const tall = await page.$$eval('li.conversation a.title', (links) => links.filter((link) => {
          const style = (globalThis as unknown as { getComputedStyle: (element: unknown) => { lineHeight: string; fontSize: string } }).getComputedStyle(link);
          return link.getBoundingClientRect().height > 2.5 * (parseFloat(style.lineHeight) || 1.3 * parseFloat(style.fontSize));
        }).length);
        expect(tall).toBe(0);
        expect(await page.locator('form.filter').isVisible()).toBe(javaScript);
        clean(watched);
      });
    }
  }

  it('filters the index as one types, over titles, prompts and projects', { timeout: 120_000 }, async () => {
    const watched = await open(1280);
    const { page } = watched;
    await page.goto(`${base}/index.html`);
    const total = await page.locator('li.conversation').count();
    const project = (await page.locator('section.project:last-child h2 .project-path').textContent())!;
    const inProject = await page.locator('section.project:last-child li.conversation').count();
    await page.fill('#filter', project);
    expect(await page.locator('li.conversation:visible').count()).toBeGreaterThanOrEqual(inProject);
    expect(await page.locator('section.project:last-child li.conversation:visible').count()).toBe(inProject);
    // A word of one conversation's first prompt (its title, when the title was made from it): every row left holds it.
    const prompt = (await page.locator('li.conversation .prompt, li.conversation a.title').first().textContent())!;
    const word = prompt.split(/\s+/).filter((candidate) => /^[A-Za-z]{6,}$/.test(candidate)).sort((a, b) => b.length - a.length)[0]!;
    await page.fill('#filter', word);
    const left = await page.$$eval('li.conversation:not([hidden])', (rows) => rows.map((row) => `${row.textContent} ${row.closest('section')!.querySelector('h2')!.textContent}`.toLowerCase()));
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBeLessThan(total);
    expect(left.every((text) => text.includes(word.toLowerCase()))).toBe(true);
    await page.fill('#filter', 'no conversation holds this zqxjvwk');
    expect(await page.locator('li.conversation:visible').count()).toBe(0);
    expect(await page.locator('#none').isVisible()).toBe(true);
    await page.fill('#filter', '');
    const folded = await page.locator('details.without-turns:not([open]) li.conversation').count();
    // The corpus holds sessions with no prompt of their own (warm-ups, empty main files) beside others of their project.
    expect(folded).toBeGreaterThan(0);
    expect(await page.locator('li.conversation:visible').count()).toBe(total - folded);
    // A session with no prompt of its own is found too: its fold opens while it matches, and closes again after.
    const title = (await page.locator('details.without-turns:not([open]) li.conversation a.title').first().textContent())!;
    await page.fill('#filter', title);
    expect(await page.locator('li.conversation:visible a.title', { hasText: title }).count()).toBeGreaterThan(0);
    await page.fill('#filter', '');
    expect(await page.locator('details.without-turns:not([open]) li.conversation').count()).toBe(folded);
    clean(watched);
  });

  it('offers, when the filter leaves few rows or none, to search every conversation for the same words', { timeout: 120_000 }, async () => {
    const watched = await open(390);
    const { page } = watched;
    await page.goto(`${base}/index.html`);
    const offer = page.locator('#search-offer');
    expect(await offer.isVisible()).toBe(false);
    // Words said deep in a reply are in no title, prompt or project: no row is left, and search finds them.
    const { word, target } = sought[0]!;
    await page.fill('#filter', `  ${word} `);
    expect(await page.locator('li.conversation:visible').count()).toBe(0);
    expect(await offer.isVisible()).toBe(true);
    expect(await offer.locator('a').textContent()).toBe(`Search conversations for \u201c${word}\u201d`);
    expect(await sideways(page)).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'index-search-offer-390.png') });
    // Many rows left: the filter found what was meant, and nothing is offered.
    const project = (await page.locator('section.project h2 .project-path').first().textContent())!;
    await page.fill('#filter', project.split('/').filter(Boolean).at(-1)!);
    const left = await page.locator('li.conversation:visible').count();
    expect(await offer.isVisible()).toBe(left <= 3);
    await page.fill('#filter', '');
    expect(await offer.isVisible()).toBe(false);
    await page.fill('#filter', word);
    await offer.locator('a').click();
    expect(page.url()).toBe(`${base}/search.html?q=${encodeURIComponent(word)}`);
    await searchSettled(page);
    expect(await page.inputValue('#query')).toBe(word);
    expect(await page.locator(`#results .hits a[href="${target.replace('#', `?q=${encodeURIComponent(word)}#`)}"]`).count()).toBe(1);
    clean(watched);
    // Without JavaScript there is no filter, and nothing to offer.
    const still = await open(390, false);
    await still.page.goto(`${base}/index.html`);
    expect(await still.page.locator('#search-offer').isVisible()).toBe(false);
    clean(still);
  });

  for (const width of WIDTHS) {
    it(`finds words from deep in a long reply, a tool's input and a tool's output, and lands on their step, at ${width} px`, { timeout: 240_000 }, async () => {
      expect(sought.map((entry) => entry.what)).toEqual(['reply', 'tool input', 'tool output']);
      const watched = await open(width);
      const { page } = watched;
      for (const { what, word, target } of sought) {
        await page.goto(`${base}/search.html?q=${encodeURIComponent(word)}`);
        await searchSettled(page);
        expect(await page.inputValue('#query'), what).toBe(word);
        if (what === 'reply') await page.screenshot({ path: path.join(ARTIFACTS, `search-${width}.png`) });
        expect(await sideways(page), what).toBe(0);
        // The link carries the words to the step's page (search.js), which marks them there (page.js).
        const address = target.replace('#', `?q=${encodeURIComponent(word)}#`);
        const link = `a[href="${address}"]`;
        const hit = page.locator(`#results .hits ${link}`);
        expect(await hit.count(), `${what}: ${word}`).toBe(1);
        const item = page.locator('#results .hits li', { has: page.locator(link) });
        expect((await item.locator('.snippet mark').first().textContent())!.toLowerCase(), what).toBe(word.toLowerCase());
        const group = page.locator('#results .hit-group', { has: page.locator(link) });
        expect((await group.locator('h2 a.title').textContent())!.length, what).toBeGreaterThan(0);
        await hit.click();
        expect(page.url(), what).toBe(`${base}/${address}`);
        const anchor = target.slice(target.indexOf('#') + 1);
        expect((await page.locator(`[id="${anchor}"]`).textContent())!.toLowerCase(), what).toContain(word.toLowerCase());
        // The word is marked in the step, and the first mark is on the screen.
        const marks = page.locator(`[id="${anchor}"] mark.found`);
        expect((await marks.allTextContents()).join('').toLowerCase(), what).toContain(word.toLowerCase());
        const first = await marks.first().evaluate((mark) => {
          const box = mark.getBoundingClientRect();
          return box.height > 0 && box.top >= 0 && box.bottom <= (globalThis as unknown as { innerHeight: number }).innerHeight;
        });
        expect(first, what).toBe(true);
      }
      clean(watched);
    });
  }

  it('says search needs JavaScript when it is off', { timeout: 60_000 }, async () => {
    const watched = await open(390, false);
    const { page } = watched;
    await page.goto(`${base}/search.html?q=anything`);
    expect(await page.textContent('main')).toContain('Search needs JavaScript');
    expect(await page.locator('form.search').isVisible()).toBe(false);
    await page.screenshot({ path: path.join(ARTIFACTS, 'search-390-no-script.png') });
    clean(watched);
  });
});

/**
 * Words a search must find, each in one step only: one from past the first
 * 2,400 characters of a long reply, one from a tool's input and one from a
 * tool's output, each past the first 600 characters of its part when there
 * is such a part. Each is taken from the bundle, and checked to be in the
 * text of its step's element on the built page.
 */
function wordsToSeek(bundle: string, site: string): Sought[] {
  // Every step's text, as the search scripts hold them, to pick words that only one step holds.
  const texts: string[] = [];
  for (const file of fs.readdirSync(path.join(site, 'search'))) {
    vm.runInNewContext(fs.readFileSync(path.join(site, 'search', file), 'utf8'), {
      window: { SESSIONIZER_SEARCH: { push: (data: SearchScriptData) => data.s.forEach(([, , , text]) => typeof text === 'string' && texts.push(text.toLowerCase())) } },
    });
  }
  const once = (word: string): boolean => texts.filter((text) => text.includes(word.toLowerCase())).length === 1;
  const found = new Map<string, Sought>();
  const consider = (what: string, text: string, from: number, target: string): void => {
    if (found.has(what)) return;
    for (const word of new Set(text.slice(from).match(/\b[A-Za-z]{9,20}\b/g) ?? [])) {
      if (!once(word)) continue;
      const page = fs.readFileSync(path.join(site, target.slice(0, target.indexOf('#'))), 'utf8');
      if (!page.includes(`id="${target.slice(target.indexOf('#') + 1)}"`) || !page.toLowerCase().includes(word.toLowerCase())) continue;
      found.set(what, { what, word, target });
      return;
    }
  };
  for (const id of conversationsOfBundle(bundle)) {
    const conversation = loadConversation(bundle, id);
    const structure = conversationStructure(conversation, () => undefined);
    const plan = planConversation(conversation, structure);
    const visit = (step: StepView, page: string): void => {
      const parts = partsOfStep(step.kind, step.id, step.evidence, (ref) => conversation.rows.partsOf(ref));
      const textOf = (kind: string): string => parts.filter((part) => part.view.kind === kind).flatMap((part) => part.view.segments.map((segment) => segment.text)).join(' ');
      const target = `${page}#${step.anchor}`;
      if (step.kind === 'message.assistant') consider('reply', textOf('text'), 2400, target);
      if (step.kind === 'tool') {
        const input = textOf('call');
        const output = textOf('result');
        consider('tool input', input, input.length > 1200 ? 600 : 0, target);
        consider('tool output', output, output.length > 1200 ? 600 : 0, target);
      }
      for (const child of step.children) visit(child, page);
    };
    for (const stream of structure.streams) {
      for (const talk of stream.talks) {
        const page = plan.pageOfTalk.get(talk.id);
        if (page !== undefined) for (const step of [...talk.loose, ...talk.runs.flatMap((run) => run.steps)]) visit(step, page);
      }
    }
    conversation.rows.close();
    if (found.size === 3) break;
  }
  return ['reply', 'tool input', 'tool output'].flatMap((what) => found.get(what) ?? []);
}
