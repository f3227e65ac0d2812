// Search that lands, the outline of a conversation's prompts and each step's
// link to itself, in Chromium from file://, on transcripts written here: a
// conversation of twelve prompts over several pages with a word deep in a
// folded tool output, and two newer ones, one of which finds the word in a
// subagent that only its call names. Screenshots of a landing and of an
// outline, light and dark, at 1280 and 390 px, go to test/artifacts/.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { textBlock, toolUseBlock, Transcript, stableUuid } from '../../scripts/claude-code-records.ts';
import { describeWhere, programMissing } from '../requirements.ts';
import { temporaryFolder } from '../helpers.ts';
import { CHROMIUM, exportWithSite, launch, searchSettled, watchedPage, type Watched } from './browser.ts';

const ARTIFACTS = path.resolve('test', 'artifacts');
const WIDTHS = [1280, 390] as const;
const SCHEMES = ['light', 'dark'] as const;

/** The word searched for: in three steps of the long conversation (three times in one tool output), once in each of the other two. */
const WORD = 'quokkalantern';
const PROMPTS = 12;
const LONG = stableUuid('reader navigation', 1);
const OLDER = stableUuid('reader navigation', 2);
const NEWER = stableUuid('reader navigation', 3);
const AGENT = 'a7c0ffee0000000b1';

/** Lines of plain text, `count` of them, each about 80 characters. */
function lines(label: string, count: number, special: ReadonlyMap<number, string> = new Map()): string {
  return Array.from({ length: count }, (_, index) => special.get(index) ?? `${label} line ${index}: the shelf holds oil lamps, wicks, glass chimneys and brass hooks`).join('\n');
}

/** Three sessions under one project folder, each record a second after the one before from its start. */
function writeSources(root: string): void {
  const folder = path.join(root, '-home-user-lanterns');
  fs.mkdirSync(path.join(folder, NEWER, 'subagents'), { recursive: true });
  const cwd = '/home/user/lanterns';

  // Twelve prompts, each with seven outputs of 32 KB: three pages or more. Prompt 9 greps a log whose output holds the word three times past its twentieth line (folded twice: the card and the long output).
  const long = new Transcript({ session: LONG, cwd, start: '2026-03-01T09:00:00.000Z' });
  for (let number = 1; number <= PROMPTS; number++) {
    long.prompt(`Step ${number}: check the lantern shelf number ${number}.\nThe second line of prompt ${number} is not part of the outline.${number === 5 ? ` Is ${WORD} on it?` : ''}`);
    for (let index = 0; index < 7; index++) {
      const id = `toolu_shelf_${number}_${index}`;
      const [call] = long.call([toolUseBlock(id, 'Bash', { command: `cat shelf-${number}-${index}.txt` })]);
      const output = lines(`shelf ${number}.${index}`, 400).slice(0, 32 * 1024);
      long.result(id, call!, output, { toolUseResult: { stdout: output, stderr: '', interrupted: false } });
    }
    if (number === 9) {
      const [call] = long.call([toolUseBlock('toolu_grep_9', 'Bash', { command: 'grep -n lamp shelf.log' })]);
      const output = lines('log', 120, new Map([[80, `log line 80: ${WORD} found behind the lamps`], [95, `log line 95: a second ${WORD.toUpperCase()} by the door`], [110, `log line 110: the last ${WORD}, in the box`]]));
      long.result('toolu_grep_9', call!, output, { toolUseResult: { stdout: output, stderr: '', interrupted: false } });
    }
    long.call([textBlock(number === 2 ? `Shelf 2 is checked; I will look for ${WORD} later.` : `Shelf ${number} is checked.`)]);
  }
  fs.writeFileSync(path.join(folder, `${LONG}.jsonl`), long.text());

  const older = new Transcript({ session: OLDER, cwd, start: '2026-03-03T09:00:00.000Z' });
  older.prompt('Where is the spare wick?');
  older.call([textBlock(`Next to the ${WORD}.`)]);
  older.prompt('Thanks.');
  older.call([textBlock('You are welcome.')]);
  fs.writeFileSync(path.join(folder, `${OLDER}.jsonl`), older.text());

  // A subagent with no file of its own naming its task: only the call that started it says "Count the lanterns".
  const newer = new Transcript({ session: NEWER, cwd, start: '2026-03-05T09:00:00.000Z' });
  newer.prompt('Count the lanterns with a helper.');
  const prompt = 'Count every lantern in the store room.';
  const [call] = newer.call([toolUseBlock('toolu_count', 'Agent', { description: 'Count the lanterns', prompt, subagent_type: 'general-purpose' })]);
  const child = new Transcript({ session: NEWER, cwd, agent: AGENT, start: '2026-03-05T09:00:02.000Z' });
  child.prompt(prompt, { parent: null, origin: false });
  const [list] = child.call([toolUseBlock('toolu_list', 'Bash', { command: 'ls store-room' })], { streaming: true });
  child.result('toolu_list', list!, `lantern-1\nlantern-2\n${WORD}-7`);
  child.call([textBlock('There are seven lanterns.')], { streaming: true });
  newer.result('toolu_count', call!, [textBlock('There are seven lanterns.')], { toolUseResult: { status: 'completed', agentId: AGENT, content: [textBlock('There are seven lanterns.')], totalTokens: 900 } });
  newer.call([textBlock('Seven lanterns.')]);
  fs.writeFileSync(path.join(folder, `${NEWER}.jsonl`), newer.text());
  fs.writeFileSync(path.join(folder, NEWER, 'subagents', `agent-${AGENT}.jsonl`), child.text());
}

describeWhere(programMissing(CHROMIUM), 'search that lands, the outline and links to steps, in Chromium from file://', () => {
  let base: string;
  let browser: Browser;
  beforeAll(async () => {
    const root = temporaryFolder({ forFile: true });
    writeSources(root);
    const out = await exportWithSite(root);
    base = `${pathToFileURL(out).href}/site`;
    browser = await launch();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
  });

  const open = async (width: number, options: { javaScript?: boolean; scheme?: 'light' | 'dark'; touch?: boolean } = {}): Promise<Watched> => {
    const watched = await watchedPage(browser, { javaScript: options.javaScript ?? true, viewport: { width, height: 900 }, touch: options.touch === true });
    await watched.page.emulateMedia({ colorScheme: options.scheme ?? 'light' });
    return watched;
  };
  const clean = (watched: Watched): void => {
    expect(watched.requests.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
    expect(watched.errors).toEqual([]);
    expect(watched.dialogs).toEqual([]);
  };

  it('ranks results by how many steps match, then the newest first, each dated and titled, a subagent named by its task', { timeout: 120_000 }, async () => {
    const watched = await open(1280);
    const { page } = watched;
    await page.goto(`${base}/search.html?q=${WORD}`);
    await searchSettled(page);
    const groups = await page.$$eval('#results .hit-group', (elements) =>
      elements.map((group) => ({
        title: group.querySelector('h2 a.title')!.textContent,
        date: group.querySelector('h2 time')?.getAttribute('datetime'),
        hits: [...group.querySelectorAll('.hits > li')].map((hit) => ({ label: hit.querySelector('a')!.textContent, href: hit.querySelector('a')!.getAttribute('href'), time: hit.querySelector('time')?.getAttribute('datetime'), shown: hit.querySelector('time')?.textContent })),
      })),
    );
    // Three matching steps first; then, of one each, the newer conversation.
    expect(groups.map((group) => [group.title?.replace(/^Step 1: check the lantern shelf number 1\..*$/, 'Step 1'), group.hits.length])).toEqual([
      ['Step 1', 3],
      ['Count the lanterns with a helper.', 1],
      ['Where is the spare wick?', 1],
    ]);
    expect(groups.map((group) => group.date)).toEqual(['2026-03-01T09:00:01.000Z', '2026-03-05T09:00:01.000Z', '2026-03-03T09:00:01.000Z']);
    // In a conversation, the step with the most matches first, then the newest.
    const [long, newer] = groups;
    expect(long!.hits.map((hit) => hit.label)).toEqual(['prompt 9 · Bash', 'prompt 5 · prompt', 'prompt 2 · reply']);
    expect(long!.hits.every((hit) => hit.time !== undefined && /^2026-03-01 \d\d:\d\d UTC$/.test(hit.shown ?? ''))).toBe(true);
    expect(newer!.hits[0]!.label).toBe('subagent “Count the lanterns” · prompt 1 · Bash');
    // Every link carries the words to the page it lands on.
    expect(groups.flatMap((group) => group.hits).every((hit) => new RegExp(`^c/[^?#]+\\.html\\?q=${WORD}#n[0-9a-f]+$|^s/[^?#]+\\.html\\?q=${WORD}#n[0-9a-f]+$`).test(hit.href ?? ''))).toBe(true);
    clean(watched);
  });

  for (const width of WIDTHS) {
    for (const scheme of SCHEMES) {
      it(`lands on a word inside two closed folds with them open, every match marked and the first in view, at ${width} px, ${scheme}`, { timeout: 120_000 }, async () => {
        const watched = await open(width, { scheme });
        const { page } = watched;
        await page.goto(`${base}/search.html?q=${WORD}`);
        await searchSettled(page);
        await page.click('#results .hit-group:first-child .hits > li:first-child a');
        await page.waitForLoadState('load');
        expect(page.url()).toMatch(new RegExp(`/site/c/${LONG}(-\\d+)?\\.html\\?q=${WORD}#n[0-9a-f]+$`));
        // Let the browser's own scroll to the anchor happen, then look.
        await page.waitForTimeout(300);
        const landed = await page.evaluate(landing);
        expect(landed.targetOpen).toBe(true);
        expect(landed.marks).toEqual([WORD, WORD.toUpperCase(), WORD]);
        expect(landed.closedAround).toBe(0);
        expect(landed.outsideTarget).toBe(0);
        expect(landed.firstInView).toBe(true);
        expect(await sideways(page)).toBe(0);
        await page.screenshot({ path: path.join(ARTIFACTS, `search-landing-${width}-${scheme}.png`) });
        clean(watched);
      });
    }
  }

  it('lands on the step without ?q= too, its folds open and nothing marked', { timeout: 60_000 }, async () => {
    const watched = await open(1280);
    const { page } = watched;
    await page.goto(`${base}/search.html?q=${WORD}`);
    await searchSettled(page);
    const href = (await page.getAttribute('#results .hit-group:first-child .hits > li:first-child a', 'href'))!;
    await page.goto(`${base}/${href.replace(/\?q=[^#]*/, '')}`);
    const landed = await page.evaluate(landing);
    expect([landed.targetOpen, landed.marks]).toEqual([true, []]);
    clean(watched);
  });

  it('never takes markup in the words for markup: marks are text', { timeout: 60_000 }, async () => {
    const watched = await open(1280);
    const { page } = watched;
    await page.goto(`${base}/search.html?q=${WORD}`);
    await searchSettled(page);
    const href = (await page.getAttribute('#results .hit-group:first-child .hits > li:first-child a', 'href'))!;
    const hostile = `<img src=x onerror="window.__xss=1"> ${WORD} <script>window.__xss=2</script> </mark><b>`;
    await page.goto(`${base}/${href.replace(/\?q=[^#]*/, `?q=${encodeURIComponent(hostile)}`)}`);
    const landed = await page.evaluate(landing);
    expect(landed.marks).toEqual([WORD, WORD.toUpperCase(), WORD]);
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
    clean(watched);
  });

  for (const width of WIDTHS) {
    for (const scheme of SCHEMES) {
      it(`lists every prompt of a conversation of several pages in a fold at the top of its first page, linked across pages, at ${width} px, ${scheme}`, { timeout: 120_000 }, async () => {
        const watched = await open(width, { scheme });
        const { page } = watched;
        await page.goto(`${base}/c/${LONG}.html`);
        const pages = await page.locator('nav.pages a:not([rel]), nav.pages strong').count();
        expect(pages).toBeGreaterThan(2);
        const outline = page.locator('main details.outline');
        expect(await outline.count()).toBe(1);
        expect(await outline.getAttribute('open')).toBeNull();
        // It comes before the first prompt, and the first prompt is still on the first screen.
        expect(await page.evaluate(() => {
          const { document } = globalThis as unknown as { document: { querySelector(selector: string): { compareDocumentPosition(other: unknown): number } | null } };
          return (document.querySelector('details.outline')!.compareDocumentPosition(document.querySelector('.talk')) & 4) !== 0;
        })).toBe(true);
        await outline.locator('summary').click();
        const entries = await outline.locator('li').evaluateAll((items) => items.map((item) => ({ text: item.querySelector('a')!.textContent, href: item.querySelector('a')!.getAttribute('href'), time: item.querySelector('time')?.getAttribute('datetime') })));
        expect(entries.map((entry) => entry.text)).toEqual(Array.from({ length: PROMPTS }, (_, index) => `Step ${index + 1}: check the lantern shelf number ${index + 1}.`));
        expect(entries.every((entry) => entry.time?.startsWith('2026-03-01T'))).toBe(true);
        const files = new Set(entries.map((entry) => entry.href!.split('#')[0]));
        expect(files.size).toBe(pages);
        expect(await sideways(page)).toBe(0);
        await page.screenshot({ path: path.join(ARTIFACTS, `outline-${width}-${scheme}.png`) });
        // Each entry opens its prompt, on whichever page it is.
        for (const at of [PROMPTS - 1, 0]) {
          await page.goto(`${base}/c/${LONG}.html`);
          await page.locator('details.outline summary').click();
          await page.locator('details.outline li a').nth(at).click();
          await page.waitForLoadState('load');
          const anchor = entries[at]!.href!.split('#')[1]!;
          expect(page.url()).toBe(new URL(entries[at]!.href!, `${base}/c/${LONG}.html`).href);
          const talk = page.locator(`[id="${anchor}"]`);
          expect(await talk.getAttribute('class')).toBe('talk');
          expect(await talk.locator('.msg.human').first().textContent()).toContain(`Step ${at + 1}: check the lantern shelf number ${at + 1}.`);
          expect(await talk.evaluate((element) => element.getBoundingClientRect().top)).toBeLessThan(900);
        }
        clean(watched);
      });
    }
  }

  it('shows the outline and the links to steps with JavaScript off', { timeout: 60_000 }, async () => {
    const watched = await open(390, { javaScript: false });
    const { page } = watched;
    await page.goto(`${base}/c/${LONG}.html`);
    await page.locator('details.outline summary').click();
    expect(await page.locator('details.outline li a').count()).toBe(PROMPTS);
    const link = page.locator('details.tool .self-link').first();
    const href = (await link.getAttribute('href'))!;
    await link.focus();
    await page.keyboard.press('Enter');
    // Enter starts the move to the step; the address changes once Chromium commits it, a moment later.
    await page.waitForURL((url) => url.href.endsWith(href), { timeout: 10_000 });
    expect(page.url()).toContain(href);
    clean(watched);
  });

  it('shows each step’s link to itself on hover and on keyboard focus, and faintly on a touch screen', { timeout: 60_000 }, async () => {
    const watched = await open(1280);
    const { page } = watched;
    await page.goto(`${base}/c/${LONG}.html`);
    const links = await page.locator('.step .self-link').evaluateAll((elements) => elements.map((link) => ({ href: link.getAttribute('href'), step: link.closest('.step')!.id, label: link.getAttribute('aria-label') })));
    // The person's prompts, the assistant's turns and the tool cards each link to themselves.
    expect(links.length).toBeGreaterThan(10);
    expect(links.filter((link) => link.href !== `#${link.step}` || !link.label)).toEqual([]);
    for (const selector of ['.msg.human', '.reply.assistant > header', 'details.tool']) expect(await page.locator(`${selector} .self-link`).count(), selector).toBeGreaterThan(0);
    // A reply's header links to its first provider call, where the reply starts.
    const replies = await page.locator('.reply.assistant').evaluateAll((elements) => elements.map((reply) => ({ href: reply.querySelector(':scope > header .self-link')?.getAttribute('href'), first: reply.querySelector('.step.call')?.id })));
    expect(replies.filter((reply) => reply.href !== `#${reply.first}`)).toEqual([]);
    const tool = page.locator('details.tool').nth(1);
    const opacity = (locator: ReturnType<Page['locator']>): Promise<string> => locator.evaluate((element) => (globalThis as unknown as { getComputedStyle(element: unknown): { opacity: string } }).getComputedStyle(element).opacity);
    await page.mouse.move(1, 1);
    expect(await opacity(tool.locator(':scope > summary > .self-link'))).toBe('0');
    await tool.locator(':scope > summary').hover();
    expect(await opacity(tool.locator(':scope > summary > .self-link'))).toBe('1');
    await page.mouse.move(1, 1);
    // Keyboard: Tab reaches a step's link, which shows while it has the focus.
    let focused: { selfLink: boolean; opacity: string; href: string | null } = { selfLink: false, opacity: '', href: null };
    for (let press = 0; press < 40 && !focused.selfLink; press++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => {
        const { document, getComputedStyle } = globalThis as unknown as { document: { activeElement: { classList: { contains(name: string): boolean }; getAttribute(name: string): string | null } | null }; getComputedStyle(element: unknown): { opacity: string } };
        const active = document.activeElement!;
        return { selfLink: active.classList.contains('self-link'), opacity: getComputedStyle(active).opacity, href: active.getAttribute('href') };
      });
    }
    expect(focused.selfLink).toBe(true);
    expect(focused.opacity).toBe('1');
    await page.screenshot({ path: path.join(ARTIFACTS, 'self-link-focus-1280.png') });
    clean(watched);
    const touch = await open(390, { touch: true });
    await touch.page.goto(`${base}/c/${LONG}.html`);
    expect(Number(await opacity(touch.page.locator('details.tool .self-link').first()))).toBeGreaterThan(0.2);
    await touch.page.screenshot({ path: path.join(ARTIFACTS, 'self-link-touch-390.png') });
    clean(touch);
  });
});

function sideways(page: Page): Promise<number> {
  return page.evaluate(() => {
    const { documentElement } = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
    return documentElement.scrollWidth - documentElement.clientWidth;
  });
}

/**
 * Run in the page: how the step the address names was landed on: whether it
 * is open, the text of every mark of a match, how many folds around a mark
 * are still closed, how many marks are outside the step, and whether the
 * first mark is on the screen.
 */
function landing(): { targetOpen: boolean; marks: string[]; closedAround: number; outsideTarget: number; firstInView: boolean } {
  type Element = { tagName: string; open?: boolean; parentElement: Element | null; textContent: string; getBoundingClientRect(): { top: number; bottom: number; height: number }; closest(selector: string): Element | null };
  const { document, location, innerHeight } = globalThis as unknown as { document: { getElementById(id: string): Element | null; querySelectorAll(selector: string): Iterable<Element> }; location: { hash: string }; innerHeight: number };
  const target = document.getElementById(decodeURIComponent(location.hash.slice(1)))!;
  const marks = [...document.querySelectorAll('mark')];
  let closedAround = 0;
  for (const mark of marks) for (let at = mark.parentElement; at; at = at.parentElement) if (at.tagName === 'DETAILS' && !at.open) closedAround++;
  const first = marks[0]?.getBoundingClientRect();
  return {
    targetOpen: target.tagName !== 'DETAILS' || target.open === true,
    marks: marks.map((mark) => mark.textContent),
    closedAround,
    outsideTarget: marks.filter((mark) => !(target as unknown as { contains(other: unknown): boolean }).contains(mark)).length,
    firstInView: first !== undefined && first.height > 0 && first.top >= 0 && first.bottom <= innerHeight,
  };
}
