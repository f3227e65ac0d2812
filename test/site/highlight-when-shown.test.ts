// Code is left plain by the export and highlighted in the browser when it
// is first shown (generator/browser-highlight.ts, public/page.js): code the
// page shows open as the page loads, code far down the page once it is
// scrolled near, code in a tool card that starts closed once the card is
// opened; with shiki's HTML for it, from file://, with no error under the
// pages' content security policy. A search that lands in it keeps its
// marks; without JavaScript it reads the same, plain.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { textBlock, toolUseBlock, Transcript, stableUuid } from '../../scripts/claude-code-records.ts';
import { browserHighlighter } from './browser-highlighting.ts';
import { describeWhere, programMissing } from '../requirements.ts';
import { temporaryFolder } from '../helpers.ts';
import { CHROMIUM, exportWithSite, launch, watchedPage, type Watched } from './browser.ts';

const SESSION = stableUuid('highlight when shown', 1);
const WORD = 'marmaladeheron';
/** Written by a call whose card starts closed. */
const WRITTEN = `import { readFile } from 'node:fs/promises';\n\n// Counts the ${WORD}s of a file.\nexport async function count(file: string): Promise<number> {\n  const text = await readFile(file, 'utf8');\n  return text.split('${WORD}').length - 1;\n}\n`;
/** A command that failed: its card starts open. */
const FAILED = 'grep -rn "lantern" ./missing-folder | sort -u';
/** A fence in the assistant's reply, shown open. */
const REPLIED = 'const total = await count("shelf.txt");';
/** A fence in the last reply, many screens down the page. */
const LAST = 'def shelves(total):\n    return [total // 2, total - total // 2]\n';

function writeSources(root: string): void {
  const folder = path.join(root, '-home-user-herons');
  fs.mkdirSync(folder, { recursive: true });
  const transcript = new Transcript({ session: SESSION, cwd: '/home/user/herons', start: '2026-04-01T09:00:00.000Z' });
  transcript.prompt('Write a counter, then look for lanterns.');
  const [write] = transcript.call([toolUseBlock('toolu_write', 'Write', { file_path: '/home/user/herons/count.ts', content: WRITTEN })]);
  transcript.result('toolu_write', write!, 'File created successfully at: /home/user/herons/count.ts');
  const [grep] = transcript.call([toolUseBlock('toolu_grep', 'Bash', { command: FAILED })]);
  transcript.result('toolu_grep', grep!, 'grep: ./missing-folder: No such file or directory', { isError: true });
  transcript.call([textBlock(`Done. Use it as:\n\n\`\`\`ts\n${REPLIED}\n\`\`\``)]);
  for (let turn = 1; turn <= 40; turn++) {
    transcript.prompt(`Question ${turn} about the shelves.`);
    transcript.call([textBlock(Array.from({ length: 6 }, (_, line) => `Answer ${turn}, paragraph ${line + 1}: the shelves hold what they hold, and the herons count them.`).join('\n\n'))]);
  }
  transcript.prompt('And split them in two?');
  transcript.call([textBlock(`Like this:\n\n\`\`\`python\n${LAST}\`\`\``)]);
  fs.writeFileSync(path.join(folder, `${SESSION}.jsonl`), transcript.text());
}

/** The HTML of `code` in `language`, as the browser's highlighter makes it. */
const highlightedAs = browserHighlighter();
async function shikiHtml(language: string, code: string): Promise<string> {
  return (await highlightedAs(language, code))!;
}

type Found = { hasAttribute(name: string): boolean; querySelector(selector: string): unknown } | null;
/** Whether the first block `selector` names whose text starts with `start` is highlighted: no longer marked for the browser, and in spans. */
const highlighted = ([selector = '', start = '']: string[]): boolean => {
  const blocks = (globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<Found & { textContent: string }> } }).document.querySelectorAll(selector);
  const pre = Array.from(blocks).find((block) => block !== null && block.textContent.startsWith(start));
  return pre !== undefined && pre !== null && !pre.hasAttribute('data-highlight') && pre.querySelector('span') !== null;
};

describeWhere(programMissing(CHROMIUM), 'code highlighted when it is first shown, in Chromium from file://', () => {
  let site: string;
  let page: string;
  let browser: Browser;
  beforeAll(async () => {
    const root = temporaryFolder({ forFile: true });
    writeSources(root);
    site = path.join(await exportWithSite(root), 'site');
    page = path.join(site, 'c', `${SESSION}.html`);
    browser = await launch();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
  });

  const open = async (javaScript = true): Promise<Watched> => {
    const watched = await watchedPage(browser, { javaScript });
    await watched.page.goto(pathToFileURL(page).href);
    return watched;
  };
  const clean = (watched: Watched): void => {
    expect(watched.requests.filter((url) => !url.startsWith(`${pathToFileURL(site).href}/`))).toEqual([]);
    expect(watched.errors).toEqual([]);
  };
  const loaded = (watched: Watched): string[] => watched.requests.filter((url) => url.includes('/code/')).map((url) => url.slice(url.indexOf('/code/'))).sort();
  const writtenCard = 'details.t-file_write';
  const writtenBlock = `${writtenCard} pre.code`;
  const failedBlock = 'details.t-shell pre.code';
  // The reply's fence, apart from the closed card's code in the same language.
  const replied = ['pre.code[data-language="ts"]', REPLIED];
  const repliedBlock = 'pre.code[data-language="ts"]:not(details.tool pre)';
  const lastBlock = 'pre.code[data-language="python"]';
  /** The DOM of `html` as the page serializes it, to compare with a block's innerHTML. */
  const asTheBrowserHasIt = (watched: Watched, html: string): Promise<string> =>
    watched.page.evaluate((markup) => {
      const pre = (globalThis as unknown as { document: { createElement(tag: string): { innerHTML: string } } }).document.createElement('pre');
      pre.innerHTML = markup;
      return pre.innerHTML;
    }, html);

  it('leaves every block of code plain and marked for the browser, and carries the highlighter', () => {
    const html = fs.readFileSync(page, 'utf8');
    expect(html).toMatch(/<details class="step tool t-file_write st-ok" id="[^"]+"><summary>/);
    const written = html.slice(html.indexOf('t-file_write'));
    expect(written).toMatch(/^[^]*?<pre class="code" data-language="ts" data-highlight="when-shown">import \{ readFile \}/);
    const failed = html.slice(html.indexOf('t-shell'));
    expect(failed).toMatch(/^[^"]*"[^>]*open=""/);
    expect(failed).toMatch(/<pre class="code" data-language="(bash|sh|shell|shellscript)" data-highlight="when-shown">grep/);
    expect(html).toContain('<pre class="code" data-language="ts" data-highlight="when-shown">const total');
    expect(html).not.toMatch(/<span class="h-/);
    expect(fs.existsSync(path.join(site, 'code', 'highlight.js'))).toBe(true);
    expect(fs.existsSync(path.join(site, 'code', 'grammars', 'typescript.js'))).toBe(true);
    expect(fs.readFileSync(path.join(site, 'code', 'LICENSES.txt'), 'utf8')).toContain('shiki');
  });

  it('highlights the code shown open as the page loads, and the code further down once it is scrolled near', { timeout: 60_000 }, async () => {
    const watched = await open();
    const { page: browserPage } = watched;
    await browserPage.waitForFunction(highlighted, replied);
    await browserPage.waitForFunction(highlighted, [failedBlock, 'grep']);
    expect(await browserPage.$eval(repliedBlock, (pre) => pre.innerHTML)).toBe(await asTheBrowserHasIt(watched, await shikiHtml('typescript', REPLIED)));
    // Far below the screen and in a closed card: plain, their grammar not loaded.
    await browserPage.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
    expect(await browserPage.$eval(lastBlock, (pre) => ({ spans: pre.querySelectorAll('span').length, marked: pre.getAttribute('data-highlight') }))).toEqual({ spans: 0, marked: 'when-shown' });
    expect(await browserPage.$eval(writtenBlock, (pre) => pre.querySelectorAll('span').length)).toBe(0);
    expect(loaded(watched)).not.toContain('/code/grammars/python.js');
    await browserPage.$eval(lastBlock, (pre) => pre.scrollIntoView());
    await browserPage.waitForFunction(highlighted, [lastBlock, 'def']);
    const last = await browserPage.$eval(lastBlock, (pre) => ({ html: pre.innerHTML, text: pre.textContent ?? '' }));
    expect(last.text.trimEnd()).toBe(LAST.trimEnd());
    expect(last.html).toBe(await asTheBrowserHasIt(watched, await shikiHtml('python', last.text)));
    expect(loaded(watched)).toContain('/code/grammars/python.js');
    clean(watched);
  });

  it('highlights the code of a closed card when it is opened, loading the highlighter and each grammar once', { timeout: 60_000 }, async () => {
    const watched = await open();
    const { page: browserPage } = watched;
    await browserPage.waitForFunction(highlighted, replied);
    await browserPage.click(`${writtenCard} > summary`);
    await browserPage.waitForFunction(highlighted, [writtenBlock, 'import']);
    const shown = await browserPage.$eval(writtenBlock, (pre) => ({ html: pre.innerHTML, text: pre.textContent }));
    expect(shown.text).toBe(WRITTEN);
    expect(shown.html).toBe(await asTheBrowserHasIt(watched, await shikiHtml('typescript', WRITTEN)));
    const once = loaded(watched);
    expect(once.filter((url) => url === '/code/highlight.js')).toHaveLength(1);
    expect(once.filter((url) => url === '/code/grammars/typescript.js')).toHaveLength(1);
    // Closed and opened again, it is neither highlighted nor loaded again.
    await browserPage.click(`${writtenCard} > summary`);
    await browserPage.click(`${writtenCard} > summary`);
    await browserPage.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
    expect(await browserPage.$eval(writtenBlock, (pre) => pre.innerHTML)).toBe(shown.html);
    expect(loaded(watched)).toEqual(once);
    clean(watched);
  });

  it('keeps the marks of a search that lands in the code, once highlighted', { timeout: 60_000 }, async () => {
    const anchor = fs.readFileSync(page, 'utf8').match(/<details class="step tool t-file_write st-ok" id="([^"]+)"/)![1]!;
    const watched = await watchedPage(browser);
    const { page: browserPage } = watched;
    await browserPage.goto(`${pathToFileURL(page).href}?q=${WORD}#${anchor}`);
    await browserPage.waitForFunction((selector) => {
      const pre = (globalThis as unknown as { document: { querySelector(selector: string): Found } }).document.querySelector(selector);
      return pre !== null && !pre.hasAttribute('data-highlight') && pre.querySelector('span') !== null && pre.querySelector('mark.found') !== null;
    }, writtenBlock);
    const marks = await browserPage.$$eval(`${writtenBlock} mark.found`, (found) => found.map((mark) => mark.textContent));
    expect(marks.join('|')).toBe([WORD, WORD].join('|'));
    expect(await browserPage.$eval(writtenBlock, (pre) => pre.textContent)).toBe(WRITTEN);
    // Once the page has loaded, the first match is in view: the one made again in the highlighted code.
    await browserPage.waitForLoadState('load');
    await browserPage.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
    const shown = await browserPage.$eval(`${writtenBlock} mark.found`, (mark) => {
      const box = mark.getBoundingClientRect();
      return { top: box.top, bottom: box.bottom, height: (globalThis as unknown as { innerHeight: number }).innerHeight };
    });
    expect(shown.top).toBeGreaterThanOrEqual(0);
    expect(shown.bottom).toBeLessThanOrEqual(shown.height);
    clean(watched);
  });

  it('reads the same without JavaScript, the code plain', { timeout: 60_000 }, async () => {
    const watched = await open(false);
    await watched.page.click(`${writtenCard} > summary`);
    expect(await watched.page.$eval(writtenBlock, (pre) => ({ spans: pre.querySelectorAll('span').length, text: pre.textContent }))).toEqual({ spans: 0, text: WRITTEN });
    expect(await watched.page.$eval(repliedBlock, (pre) => pre.querySelectorAll('span').length)).toBe(0);
    clean(watched);
  });
});
