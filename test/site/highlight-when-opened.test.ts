// Code in a tool card that starts closed is left plain by the export and
// highlighted in the browser when the card is first opened
// (generator/browser-highlight.ts, public/page.js): the same HTML the
// export's highlighter makes for it, from file://, with no error under the
// pages' content security policy; a search that lands in it keeps its
// marks; without JavaScript it reads the same, plain. Code the page shows
// open (a reply's fence, a failed call's card) is highlighted by the export.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { textBlock, toolUseBlock, Transcript, stableUuid } from '../../scripts/claude-code-records.ts';
import { createHighlighter, type Highlighter } from '../../src/site/generator/highlight.ts';
import { describeWhere, programMissing } from '../requirements.ts';
import { temporaryFolder } from '../helpers.ts';
import { CHROMIUM, exportWithSite, launch, watchedPage, type Watched } from './browser.ts';

const SESSION = stableUuid('highlight when opened', 1);
const WORD = 'marmaladeheron';
/** Written by a call whose card starts closed. */
const WRITTEN = `import { readFile } from 'node:fs/promises';\n\n// Counts the ${WORD}s of a file.\nexport async function count(file: string): Promise<number> {\n  const text = await readFile(file, 'utf8');\n  return text.split('${WORD}').length - 1;\n}\n`;
/** A command that failed: its card starts open. */
const FAILED = 'grep -rn "lantern" ./missing-folder | sort -u';
/** A fence in the assistant's reply, shown open. */
const REPLIED = 'const total = await count("shelf.txt");';

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
  fs.writeFileSync(path.join(folder, `${SESSION}.jsonl`), transcript.text());
}

describeWhere(programMissing(CHROMIUM), 'code in a closed card, highlighted when the card opens, in Chromium from file://', () => {
  let site: string;
  let page: string;
  let browser: Browser;
  let highlighter: Highlighter;
  beforeAll(async () => {
    const root = temporaryFolder({ forFile: true });
    writeSources(root);
    site = path.join(await exportWithSite(root), 'site');
    page = path.join(site, 'c', `${SESSION}.html`);
    browser = await launch();
    highlighter = await createHighlighter(temporaryFolder());
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    highlighter?.dispose();
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
  const writtenCard = 'details.t-file_write';
  const writtenBlock = `${writtenCard} pre.code`;
  /** The DOM of `html` as the page serializes it, to compare with a block's innerHTML. */
  const asTheBrowserHasIt = (watched: Watched, html: string): Promise<string> =>
    watched.page.evaluate((markup) => {
      const pre = (globalThis as unknown as { document: { createElement(tag: string): { innerHTML: string } } }).document.createElement('pre');
      pre.innerHTML = markup;
      return pre.innerHTML;
    }, html);

  it('leaves the closed card’s code plain and marked for the browser, and highlights what the page shows open', async () => {
    const html = fs.readFileSync(page, 'utf8');
    expect(html).toMatch(/<details class="step tool t-file_write st-ok" id="[^"]+"><summary>/);
    const written = html.slice(html.indexOf('t-file_write'));
    expect(written).toMatch(/^[^]*?<pre class="code" data-language="ts" data-highlight="when-opened">import \{ readFile \}/);
    const failed = html.slice(html.indexOf('t-shell'));
    expect(failed).toMatch(/^[^"]*"[^>]*open=""/);
    expect(failed).toMatch(/<pre class="code" data-language="(bash|sh|shell|shellscript)"><span class="h-/);
    expect(html).toContain(`${(await highlighter.ensure('ts', REPLIED))!}`);
    // The site carries the highlighter and the grammars it loads.
    expect(fs.existsSync(path.join(site, 'code', 'highlight.js'))).toBe(true);
    expect(fs.existsSync(path.join(site, 'code', 'grammars', 'typescript.js'))).toBe(true);
    expect(fs.readFileSync(path.join(site, 'code', 'LICENSES.txt'), 'utf8')).toContain('shiki');
  });

  it('highlights the code when its card is opened: the HTML the export makes for it', { timeout: 60_000 }, async () => {
    const watched = await open();
    const { page: browserPage } = watched;
    expect(await browserPage.$eval(writtenBlock, (pre) => pre.querySelectorAll('span').length)).toBe(0);
    await browserPage.click(`${writtenCard} > summary`);
    await browserPage.waitForFunction((selector) => {
      const pre = (globalThis as unknown as { document: { querySelector(selector: string): { hasAttribute(name: string): boolean } | null } }).document.querySelector(selector);
      return pre !== null && !pre.hasAttribute('data-highlight');
    }, writtenBlock);
    const shown = await browserPage.$eval(writtenBlock, (pre) => ({ html: pre.innerHTML, text: pre.textContent }));
    expect(shown.text).toBe(WRITTEN);
    expect(shown.html).toBe(await asTheBrowserHasIt(watched, (await highlighter.ensure('ts', WRITTEN))!));
    // The highlighter and the language's grammar were loaded once, as the card first opened.
    const loaded = (): string[] => watched.requests.filter((url) => url.includes('/code/')).map((url) => url.slice(url.indexOf('/code/')));
    expect(loaded()).toEqual(['/code/highlight.js', '/code/grammars/typescript.js']);
    // Closed and opened again, it is neither highlighted nor loaded again.
    await browserPage.click(`${writtenCard} > summary`);
    await browserPage.click(`${writtenCard} > summary`);
    await browserPage.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
    expect(await browserPage.$eval(writtenBlock, (pre) => pre.innerHTML)).toBe(shown.html);
    expect(loaded()).toEqual(['/code/highlight.js', '/code/grammars/typescript.js']);
    clean(watched);
  });

  it('keeps the marks of a search that lands in the code, once highlighted', { timeout: 60_000 }, async () => {
    const anchor = fs.readFileSync(page, 'utf8').match(/<details class="step tool t-file_write st-ok" id="([^"]+)"/)![1]!;
    const watched = await watchedPage(browser);
    const { page: browserPage } = watched;
    await browserPage.goto(`${pathToFileURL(page).href}?q=${WORD}#${anchor}`);
    await browserPage.waitForFunction((selector) => {
      const pre = (globalThis as unknown as { document: { querySelector(selector: string): { hasAttribute(name: string): boolean; querySelector(selector: string): unknown } | null } }).document.querySelector(selector);
      return pre !== null && !pre.hasAttribute('data-highlight') && pre.querySelector('span') !== null && pre.querySelector('mark.found') !== null;
    }, writtenBlock);
    const marks = await browserPage.$$eval(`${writtenBlock} mark.found`, (found) => found.map((mark) => mark.textContent));
    expect(marks.join('|')).toBe([WORD, WORD].join('|'));
    expect(await browserPage.$eval(writtenBlock, (pre) => pre.textContent)).toBe(WRITTEN);
    clean(watched);
  });

  it('reads the same without JavaScript, the code plain', { timeout: 60_000 }, async () => {
    const watched = await open(false);
    await watched.page.click(`${writtenCard} > summary`);
    expect(await watched.page.$eval(writtenBlock, (pre) => ({ spans: pre.querySelectorAll('span').length, text: pre.textContent }))).toEqual({ spans: 0, text: WRITTEN });
    clean(watched);
  });
});
