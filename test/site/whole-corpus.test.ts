// The site of every transcript of ../shared/corpus (each folder that holds
// transcripts laid out as a project folder of its own, as its MANIFEST.json
// lists them), when it is present beside the checkout: a conversation
// printed to A4 paper in Chromium takes about as many pages as
// claude-code-log's print of it, the reader's pages call a branch a branch,
// and no two branches listed at one point read the same.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWhere, filesMissing, firstMissing, programMissing } from '../requirements.ts';
import { temporaryFolder } from '../helpers.ts';
import { CHROMIUM, exportWithSite, launch } from './browser.ts';

const repository = fileURLToPath(new URL('../..', import.meta.url));
const corpus = path.resolve(repository, '..', 'shared', 'corpus');
const missing = firstMissing(filesMissing(path.join(corpus, 'MANIFEST.json')), programMissing(CHROMIUM));

/**
 * The conversation issue 42 measured: four prompts, 199 A4 pages when every
 * fold was printed open, 12 in claude-code-log's print of it.
 */
const MEASURED = { id: '7d3d65bd-3f8b-4085-8375-79bed652d353', claudeCodeLog: 12 } as const;
/** The most A4 pages any conversation whose own pages hold four prompts (its header's count) may print to: the longest prints to 6. */
const FOUR_PROMPTS_MOST = 20;
/** The words a reader's page does not use for a branch: the glossary alone keeps the model's terms. */
const NOT_BRANCH = /\bpaths?\b|\bforks\b|fork point|natural branch/i;

// The page's globals, inside page.evaluate: the project compiles without the DOM's types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;

/** Every transcript the corpus's manifest lists, each in a project folder named for the folder it is in, its session's own folder (subagents) beside it. */
function corpusProjects(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'MANIFEST.json'), 'utf8')) as { corpus_dir: string; path: string }[];
  const root = temporaryFolder({ forFile: true });
  for (const entry of manifest) {
    if (!entry.path.endsWith('.jsonl') || entry.path.includes('/subagents/')) continue;
    const folder = path.join(root, `${entry.corpus_dir}--${path.dirname(entry.path).replaceAll('/', '-')}`.replaceAll('.', '_'));
    fs.mkdirSync(folder, { recursive: true });
    const source = path.join(corpus, entry.corpus_dir, entry.path);
    fs.copyFileSync(source, path.join(folder, path.basename(source)));
    const own = source.slice(0, -'.jsonl'.length);
    if (fs.existsSync(own) && fs.statSync(own).isDirectory() && !fs.existsSync(path.join(folder, path.basename(own)))) fs.cpSync(own, path.join(folder, path.basename(own)), { recursive: true });
  }
  return root;
}

/** The number of pages of a PDF Chromium printed: one page object each. */
function pdfPages(pdf: Buffer): number {
  return pdf.toString('latin1').match(/\/Type\s*\/Page(?![s\w])/g)?.length ?? 0;
}

describeWhere(missing, 'the site of every transcript of ../shared/corpus', () => {
  let site: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const newPage = async (javaScript: boolean): Promise<Page> => {
    const context = await browser.newContext({ javaScriptEnabled: javaScript });
    contexts.push(context);
    return context.newPage();
  };
  /** The pages of a conversation, a branch or a subagent, by folder. */
  const pagesIn = (folder: string): string[] => (fs.existsSync(path.join(site, folder)) ? fs.readdirSync(path.join(site, folder)).sort().map((name) => path.join(site, folder, name)) : []);
  /** Every page of a conversation, in order: its first, then -2, -3, … */
  const pagesOf = (id: string): string[] => {
    const first = path.join(site, 'c', `${id}.html`);
    const rest = pagesIn('c').filter((file) => path.basename(file).startsWith(`${id}-`)).sort((a, b) => Number(/-(\d+)\.html$/.exec(a)![1]) - Number(/-(\d+)\.html$/.exec(b)![1]));
    return [first, ...rest];
  };
  /** The A4 pages a conversation prints to, over all its pages, as page.pdf prints them (print media, no margins). */
  const printed = async (page: Page, id: string): Promise<number> => {
    let pages = 0;
    for (const file of pagesOf(id)) {
      await page.goto(pathToFileURL(file).href);
      pages += pdfPages(await page.pdf({ format: 'A4' }));
    }
    return pages;
  };

  beforeAll(async () => {
    site = path.join(await exportWithSite(corpusProjects()), 'site');
    browser = await launch();
  }, 900_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
  });

  for (const javaScript of [true, false]) {
    it(`prints the conversation issue 42 measured within a quarter more A4 pages than claude-code-log, with JavaScript ${javaScript ? 'on' : 'off'}`, { timeout: 300_000 }, async () => {
      const page = await newPage(javaScript);
      const pages = await printed(page, MEASURED.id);
      expect(pages).toBeGreaterThan(0);
      expect(pages).toBeLessThanOrEqual(MEASURED.claudeCodeLog * 1.25);
    });
  }

  it(`prints every conversation of four prompts within ${FOUR_PROMPTS_MOST} A4 pages`, { timeout: 600_000 }, async () => {
    const page = await newPage(true);
    const fourPrompts: string[] = [];
    for (const file of pagesIn('c').filter((name) => !/-\d+\.html$/.test(name))) {
      await page.goto(pathToFileURL(file).href);
      if (/\b4 prompts\b/.test(await page.evaluate(() => document.querySelector('header.page-head .facts')?.innerText ?? ''))) fourPrompts.push(path.basename(file, '.html'));
    }
    // The conversation issue 42 measured holds four prompts over its two branches: three on its own pages, the fourth on its branch's page. It is printed all the same.
    expect(fourPrompts).not.toContain(MEASURED.id);
    fourPrompts.push(MEASURED.id);
    const counts: Record<string, number> = {};
    for (const id of fourPrompts) counts[id] = await printed(page, id);
    for (const [id, pages] of Object.entries(counts)) expect(pages, id).toBeLessThanOrEqual(FOUR_PROMPTS_MOST);
  });

  it('lists the branches at one point each by a label of its own', { timeout: 300_000 }, async () => {
    const page = await newPage(false);
    let lists = 0;
    for (const file of [...pagesIn('c'), ...pagesIn('b')]) {
      if (!fs.readFileSync(file, 'utf8').includes('class="forks"')) continue;
      await page.goto(pathToFileURL(file).href);
      const labels: string[][] = await page.evaluate(() => [...document.querySelectorAll('nav.forks ul.links')].map((list: { querySelectorAll(selector: string): Iterable<{ textContent: string }> }) => [...list.querySelectorAll(':scope > li')].map((item) => item.textContent)));
      for (const list of labels) {
        lists++;
        // What tells a branch apart, without the marks of the latest one and of the reader's own.
        const told = list.map((label) => label.replace(/ \(you are here\)$/, '').replace(/[,·] the latest (branch|path)$/, ''));
        expect(new Set(told).size, `${path.basename(file)}: ${list.join(' | ')}`).toBe(told.length);
      }
    }
    // The corpus has branches that start with the same prompt.
    expect(lists).toBeGreaterThan(5);
  });

  it('calls a branch a branch on every page a reader sees, the glossary aside', { timeout: 600_000 }, async () => {
    const page = await newPage(false);
    const files = [path.join(site, 'index.html'), path.join(site, 'search.html'), ...pagesIn('c'), ...pagesIn('b'), ...pagesIn('s')];
    const found: string[] = [];
    for (const file of files) {
      await page.goto(pathToFileURL(file).href, { waitUntil: 'domcontentloaded' });
      // The site's own words: every text of the page, folds and the audit included, but what the transcript says.
      const text: string = await page.evaluate(() => {
        const body = document.body.cloneNode(true);
        // The transcript's words: its steps, titles and headings made of its prompts, the outline of its prompts, a subagent's task, the index's rows, code and paths.
        for (const element of body.querySelectorAll('.step, .outline ol, h1, .crumbs a, .facts .project, .facts .git-branch, .audit .links, code, pre, #conversations .what, .project-path')) element.remove();
        // A branch's label quotes its prompt and its answer.
        return body.textContent.replace(/“[^”]*”/g, '“”');
      });
      const word = NOT_BRANCH.exec(text);
      if (word) found.push(`${path.relative(site, file)}: “${text.slice(Math.max(0, word.index - 60), word.index + 60).replace(/\s+/g, ' ')}”`);
    }
    expect(files.length).toBeGreaterThan(100);
    expect(found).toEqual([]);
  });
});
