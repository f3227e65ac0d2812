// The conversation pages of the real public transcripts in ../shared/corpus,
// read as a person reads them, in Chromium at 1280 and 390 px wide, with
// JavaScript on and off: the first prompt in view without scrolling, no
// sideways scrolling on a phone but inside code, none of the model's
// internal words on show until a fold is opened, tools rendered for what
// they are, a meaningful title on every page, a header that says where and
// when, a dark palette of its own with highlighted code in a dark theme,
// a printed page that shows what the screen does, and the fold around a
// linked step opened.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWhere, filesMissing, firstMissing, programMissing } from '../requirements.ts';
import { CHROMIUM, exportWithSite, launch } from './browser.ts';

const repository = fileURLToPath(new URL('../..', import.meta.url));
const corpus = path.resolve(repository, '..', 'shared', 'corpus');
const trees = [path.join(corpus, 'claude-code-log', 'test', 'test_data', 'real_projects'), path.join(corpus, 'spotter', 'test', 'fixtures')];
const missing = firstMissing(filesMissing(...trees), programMissing(CHROMIUM));

/** Words of the model that only the evidence folds, the audit and the glossary may show. */
const INTERNAL = /\b(llm\.call|context\.injection|message\.external|message\.assistant|message\.synthetic|agent\.call|agent\.launch_ack|runtime\.notification|turn\.duration|epoch\.boundary|epoch\.summary|loop: unavailable|timing: unavailable)\b/;
// The page's globals, inside page.evaluate: the project compiles without the DOM's types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;
declare function getComputedStyle(element: unknown): { backgroundColor: string; color: string; filter: string; whiteSpace: string };
declare const window: { scrollTo(x: number, y: number): void };
declare function requestAnimationFrame(callback: () => void): number;
type Shown = { innerText: string; classList: { contains(name: string): boolean } };
type Texted = { textContent: string | null };
type Folded = Texted & { id: string; querySelector(selector: string): Texted | null; querySelectorAll(selector: string): Iterable<Texted> };

const ARTIFACTS = path.resolve('test', 'artifacts');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const WIDTHS = [1280, 390] as const;

describeWhere(missing, 'the conversation pages of ../shared/corpus, as a reader meets them', () => {
  let site: string;
  let browser: Browser;
  /** The first page of every conversation, and every other page of a conversation, branch or stream. */
  let firsts: string[];
  let pages: string[];
  const contexts: BrowserContext[] = [];
  const context = async (width: number, javaScript: boolean, colorScheme: 'light' | 'dark' = 'light'): Promise<BrowserContext> => {
    const made = await browser.newContext({ viewport: { width, height: 800 }, javaScriptEnabled: javaScript, colorScheme });
    contexts.push(made);
    return made;
  };

  beforeAll(async () => {
    site = path.join(await exportWithSite(...trees), 'site');
    pages = ['c', 'b', 's'].flatMap((folder) => (fs.existsSync(path.join(site, folder)) ? fs.readdirSync(path.join(site, folder)).map((name) => path.join(site, folder, name)) : []));
    firsts = pages.filter((file) => path.basename(path.dirname(file)) === 'c' && !/-\d+\.html$/.test(file));
    browser = await launch();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 600_000);
  afterAll(async () => {
    for (const made of contexts) await made.close();
    await browser?.close();
  });

  it('has a first page for every conversation of the manifest', () => {
    expect(firsts.length).toBeGreaterThan(0);
    expect(firsts.length).toBe(fs.readdirSync(path.join(site, '..', 'bundle', '_conversations')).length);
  });

  for (const width of WIDTHS) {
    for (const javaScript of [true, false]) {
      it(`shows the transcript first at ${width} px with JavaScript ${javaScript ? 'on' : 'off'}, with nothing but code scrolling sideways`, { timeout: 300_000 }, async () => {
        const page = await (await context(width, javaScript)).newPage();
        for (const file of firsts) {
          await page.goto(pathToFileURL(file).href);
          const seen = await page.evaluate(() => {
            // The transcript's first talk: a person's prompt, or the command or context a talk began with.
            const first = document.querySelector('main section.talk');
            const box = first?.getBoundingClientRect();
            return { messages: document.querySelectorAll('main .msg').length, top: box?.top, promptHeight: box?.height, scrollWidth: document.documentElement.scrollWidth, text: document.querySelector('main')!.innerText, title: document.title };
          });
          // The transcript starts within the first screen (on a phone, within it too, once the header is read).
          // Only a page that shows no message at all (a file of child records alone) has no talk to start with.
          if (seen.top === undefined) expect(seen.messages, file).toBe(0);
          if (seen.top !== undefined) expect(seen.top, file).toBeLessThan(width === 1280 ? 800 - 60 : 800 - 40);
          expect(seen.scrollWidth, file).toBeLessThanOrEqual(width);
          expect(seen.text.match(INTERNAL)?.[0], file).toBeUndefined();
          expect(seen.title, file).toMatch(/ · Sessionizer$/);
          expect(seen.title, file).not.toMatch(UUID);
        }
      });
    }
  }

  it('renders tools for what they are: a command, a diff, files and searches; a failed call open; folds showing their first line', { timeout: 300_000 }, async () => {
    const page = await (await context(1280, false)).newPage();
    const found = { shell: 0, edit: 0, read: 0, search: 0, agent: 0, errors: 0, errorsClosed: 0, thinking: 0, markdown: 0, longPrompts: 0, longPromptsShown: 0 };
    const escaped: string[] = [];
    const repeated: string[] = [];
    for (const file of pages) {
      await page.goto(pathToFileURL(file).href);
      const seen = await page.evaluate(() => ({
        shell: document.querySelectorAll('details.tool.t-shell .command pre').length,
        edit: document.querySelectorAll('details.tool.t-edit .diff .d-add, details.tool.t-edit .diff .d-remove').length,
        read: document.querySelectorAll('details.tool.t-file_read > summary .subject').length,
        search: document.querySelectorAll('details.tool.t-search > summary .subject').length,
        agent: document.querySelectorAll('details.tool.t-agent[open] .subagent-link a[href*="s/"]').length,
        errors: document.querySelectorAll('details.tool.st-error').length,
        errorsClosed: document.querySelectorAll('details.tool.st-error:not([open])').length,
        // A thought shows its first lines, the rest folded.
        thinking: [...document.querySelectorAll('details.thinking:not([open]) > summary .preview')].filter((line: Shown) => line.innerText.length > 0).length,
        markdown: document.querySelectorAll('.markdown :is(h1, h2, h3, li, strong, code, table)').length,
        // A pasted log or file in a prompt is folded, with its first line and size; none unfolded runs to more than 90 lines (60, and what markdown's blocks add).
        longPrompts: document.querySelectorAll('article.msg > details.prompt-long:not([open]) > summary .size').length,
        longPromptsShown: [...document.querySelectorAll('article.msg')].filter((prompt: Folded) => [...prompt.querySelectorAll(':scope > .part')].some((part) => (part.textContent ?? '').split('\n').length > 90)).length,
        // A runtime fold's text, when its summary line shows it whole, is not shown again inside.
        repeated: [...document.querySelectorAll('details.runtime')].filter((fold: Folded) => {
          const line = fold.querySelector(':scope > summary .first-line')?.textContent?.trim();
          return line !== undefined && [...fold.querySelectorAll(':scope > .part')].some((part) => part.textContent?.trim() === line);
        }).map((fold: Folded) => fold.id),
        // A tool's input is never an escaped string: no `\n` inside a call's rendered input.
        escaped: [...document.querySelectorAll('details.tool .tool-body > pre.code:not(.rest), details.tool .tool-body > .command pre')].filter((pre: Shown) => /"[^"\n]*\\n[^"\n]*\\n/.test(pre.innerText)).map((pre: Shown) => pre.innerText.slice(0, 200)),
      }));
      for (const key of Object.keys(found) as (keyof typeof found)[]) found[key] += seen[key];
      escaped.push(...seen.escaped.map((text: string) => `${path.basename(file)}: ${text}`));
      repeated.push(...seen.repeated.map((id: string) => `${path.basename(file)}#${id}`));
    }
    expect(found.shell).toBeGreaterThan(0);
    expect(found.edit).toBeGreaterThan(0);
    expect(found.read).toBeGreaterThan(0);
    expect(found.search).toBeGreaterThan(0);
    expect(found.agent).toBeGreaterThan(0);
    expect(found.errorsClosed).toBe(0);
    expect(found.thinking).toBeGreaterThan(0);
    expect(found.markdown).toBeGreaterThan(0);
    expect(found.longPrompts).toBeGreaterThan(0);
    expect(found.longPromptsShown).toBe(0);
    expect(escaped).toEqual([]);
    expect(repeated).toEqual([]);
  });

  it('gives each provider call one evidence fold, which holds its replies\' landed records too', { timeout: 300_000 }, async () => {
    const page = await (await context(1280, false)).newPage();
    let calls = 0;
    let replies = 0;
    for (const file of pages) {
      await page.goto(pathToFileURL(file).href);
      const seen = await page.evaluate(() =>
        [...document.querySelectorAll('article.reply div.step.call')].map((call: { querySelectorAll(selector: string): { length: number } & Iterable<Texted> }) => ({
          folds: call.querySelectorAll(':scope > .call-head details.ev').length,
          underReplies: call.querySelectorAll(':scope > .prose-step details.ev').length,
          replies: [...call.querySelectorAll(':scope > .prose-step')].filter((reply) => (reply.textContent ?? '').trim() !== '').length,
          notes: call.querySelectorAll(':scope > .call-head details.ev .ev-also .evidence a').length,
        })),
      );
      for (const call of seen) {
        expect([call.folds, call.underReplies], path.basename(file)).toEqual([1, 0]);
        if (call.replies > 0) expect(call.notes, path.basename(file)).toBeGreaterThanOrEqual(call.replies);
        replies += call.replies;
      }
      calls += seen.length;
    }
    expect(calls).toBeGreaterThan(100);
    expect(replies).toBeGreaterThan(50);
  });

  it('has a dark palette of its own, and opens the fold around a linked step', { timeout: 120_000 }, async () => {
    const file = pathToFileURL(firsts[0]!).href;
    const background = async (scheme: 'light' | 'dark'): Promise<string> => {
      const page = await (await context(1280, true, scheme)).newPage();
      await page.goto(file);
      return page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    };
    expect(await background('light')).toBe('rgb(255, 255, 255)');
    expect(await background('dark')).not.toBe('rgb(255, 255, 255)');
    const page = await (await context(1280, true)).newPage();
    await page.goto(file);
    const folded = await page.evaluate(() => document.querySelector('details.tool:not([open]) .tool-body .ev')?.closest('details.tool')?.id);
    expect(folded).toBeTruthy();
    await page.goto(`${file}#${folded}`);
    expect(await page.evaluate((id) => (document.getElementById(id) as { open: boolean }).open, folded!)).toBe(true);
    expect(await page.locator(`#${folded} > summary`).isVisible()).toBe(true);
  });

  /** The first page whose HTML holds every one of `marks`. */
  const pageHolding = (...marks: string[]): string => {
    const found = pages.find((file) => {
      const text = fs.readFileSync(file, 'utf8');
      return marks.every((mark) => text.includes(mark));
    });
    expect(found, marks.join(', ')).toBeDefined();
    return found!;
  };

  it('opens a long prompt\'s fold when a link names the prompt, and leaves it closed otherwise', { timeout: 120_000 }, async () => {
    const file = pathToFileURL(pageHolding('class="prompt-long"')).href;
    const page = await (await context(1280, true)).newPage();
    await page.goto(file);
    const id = await page.evaluate(() => document.querySelector('details.prompt-long')?.closest('article.msg')?.id);
    expect(id).toBeTruthy();
    expect(await page.evaluate((id) => (document.querySelector(`#${id} > details.prompt-long`) as { open: boolean }).open, id!)).toBe(false);
    await page.goto(`${file}#${id}`);
    expect(await page.evaluate((id) => (document.querySelector(`#${id} > details.prompt-long`) as { open: boolean }).open, id!)).toBe(true);
  });

  it('keeps the indentation of a line pasted into a prompt, as spaces laid out as written', { timeout: 120_000 }, async () => {
    const page = await (await context(1280, false)).newPage();
    await page.goto(pathToFileURL(pageHolding('<span class="indent">')).href);
    const indent = await page.evaluate(() => {
      const span = document.querySelector('.markdown .indent');
      return { text: span.textContent, whiteSpace: getComputedStyle(span).whiteSpace, width: span.getBoundingClientRect().width };
    });
    expect(indent.text).toMatch(/^[ \t]+$/);
    expect(indent.whiteSpace).toBe('pre');
    expect(indent.width).toBeGreaterThan(0);
  });

  it('colours highlighted code with a dark theme of its own under a dark colour scheme, and diffs and terminal output for the dark too', { timeout: 120_000 }, async () => {
    const rgb = (hex: string): string => `rgb(${[0, 2, 4].map((at) => parseInt(hex.slice(at, at + 2), 16)).join(', ')})`;
    const seen = async (scheme: 'light' | 'dark') => {
      const page = await (await context(1280, true, scheme)).newPage();
      await page.goto(pathToFileURL(pageHolding('data-highlight="when-shown"', 'class="d-add"')).href);
      // Every fold opened and the page scrolled through, so that the browser highlights its code as it is shown.
      await page.evaluate(async () => {
        document.querySelectorAll('details').forEach((fold: { open: boolean }) => void (fold.open = true));
        for (let top = 0; top < document.body.scrollHeight; top += 600) {
          window.scrollTo(0, top);
          await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 20)));
        }
      });
      await page.waitForFunction(() => document.querySelectorAll('pre.code span[class^="h-"]').length > 10);
      const code = await page.evaluate(() => {
        const tokens = [...document.querySelectorAll('pre.code[data-language] span[class^="h-"]')].slice(0, 200);
        return { filters: [...document.querySelectorAll('pre.code')].map((pre) => getComputedStyle(pre).filter), tokens: tokens.map((token: { className: string }) => ({ classes: token.className, colour: getComputedStyle(token).color })), added: getComputedStyle(document.querySelector('.diff .d-add')).backgroundColor };
      });
      await page.goto(pathToFileURL(pageHolding('ansi-green-fg')).href);
      const terminal = await page.evaluate(() => getComputedStyle(document.querySelector('.ansi-green-fg')).color);
      return { ...code, terminal };
    };
    const light = await seen('light');
    const dark = await seen('dark');
    expect(light.tokens.length).toBeGreaterThan(10);
    for (const [scheme, prefix] of [[light, 'h'], [dark, 'd']] as const) {
      // No filter turns the light theme dark: every token has the colour its theme gives it.
      expect(new Set(scheme.filters)).toEqual(new Set(['none']));
      for (const token of scheme.tokens) expect(token.colour, token.classes).toBe(rgb(new RegExp(`\\b${prefix}-([0-9a-f]{6})\\b`).exec(token.classes)![1]!));
    }
    expect(dark.tokens.map((token) => token.colour)).not.toEqual(light.tokens.map((token) => token.colour));
    expect(dark.added).not.toBe(light.added);
    expect(dark.terminal).not.toBe(light.terminal);
  });

  for (const javaScript of [true, false]) {
    it(`prints what the screen shows with JavaScript ${javaScript ? 'on' : 'off'}: folds as they are, long code cut with a note, nothing past the paper’s edge; evidence, the audit and navigation left out`, { timeout: 300_000 }, async () => {
      // As wide as A4 paper: 210 mm at 96 CSS pixels to the inch, the margins page.pdf leaves by default (none).
      const paper = 794;
      const page = await (await context(paper, javaScript)).newPage();
      const files = [pageHolding('class="step thinking"', 'class="result long'), pageHolding('class="step tool t-edit'), pageHolding('class="page-head"', 'class="forks"'), ...pages.filter((file) => fs.readFileSync(file, 'utf8').includes('cut-on-paper'))];
      const found = { closedFolds: 0, openFolds: 0, evidence: 0, audits: 0, navigation: 0, cutCode: 0 };
      for (const file of files) {
        await page.goto(pathToFileURL(file).href);
        const onScreen = await page.evaluate(() => ({ open: [...document.querySelectorAll('details')].map((fold: { open: boolean }) => fold.open), notes: [...document.querySelectorAll('.cut-note')].filter((note: { checkVisibility(): boolean }) => note.checkVisibility()).length }));
        // The note under cut code is for paper only.
        expect(onScreen.notes, file).toBe(0);
        await page.emulateMedia({ media: 'print' });
        const printed = await page.evaluate(() => {
          type Box = { checkVisibility(): boolean; getBoundingClientRect(): { height: number; width: number } };
          const shown = (element: Box): boolean => element.checkVisibility() && element.getBoundingClientRect().height > 0;
          const folds = [...document.querySelectorAll('details')] as (Box & { open: boolean; querySelector(selector: string): Box | null })[];
          // What a fold holds past its summary and its evidence (which paper leaves out), as the printed page lays it out.
          const bodies = folds.map((fold) => fold.querySelector(':scope > :not(summary):not(.ev)'));
          const cut = ([...document.querySelectorAll('pre.cut-on-paper')] as (Box & { nextElementSibling: Box | null; scrollHeight: number; clientHeight: number })[]).filter(shown);
          return {
            open: folds.map((fold) => fold.open),
            // Every fold's body: printed when the fold is open and the fold itself is printed, left out when it is closed.
            bodiesAsFolds: folds.every((fold, index) => bodies[index] === null || !shown(fold) || shown(bodies[index]!) === fold.open),
            closed: folds.filter((fold) => !fold.open && shown(fold)).length,
            opened: folds.filter((fold) => fold.open && shown(fold)).length,
            evidence: [...document.querySelectorAll('.ev')].length,
            evidenceShown: ([...document.querySelectorAll('.ev')] as Box[]).filter(shown).length,
            audits: [...document.querySelectorAll('.audit')].length,
            auditsShown: ([...document.querySelectorAll('.audit')] as Box[]).filter(shown).length,
            navigation: [...document.querySelectorAll('nav')].length,
            navigationShown: ([...document.querySelectorAll('nav')] as Box[]).filter(shown).length,
            cut: cut.length,
            // Code cut on paper is cut, and says so right under it.
            cutWithNote: cut.filter((pre) => pre.scrollHeight > pre.clientHeight && pre.nextElementSibling !== null && shown(pre.nextElementSibling)).length,
            width: document.documentElement.scrollWidth,
          };
        });
        expect(printed.open, file).toEqual(onScreen.open);
        expect(printed.bodiesAsFolds, file).toBe(true);
        expect({ evidence: printed.evidenceShown, audits: printed.auditsShown, navigation: printed.navigationShown }, file).toEqual({ evidence: 0, audits: 0, navigation: 0 });
        expect(printed.cutWithNote, file).toBe(printed.cut);
        expect(printed.width, file).toBeLessThanOrEqual(paper);
        found.closedFolds += printed.closed;
        found.openFolds += printed.opened;
        found.evidence += printed.evidence;
        found.audits += printed.audits;
        found.navigation += printed.navigation;
        found.cutCode += printed.cut;
        await page.emulateMedia({ media: 'screen' });
      }
      // Every kind of thing was there to be printed or left out.
      for (const [kind, count] of Object.entries(found)) expect(count, kind).toBeGreaterThan(0);
    });
  }

  it('counts in the header as many prompts as its outline lists and its index row, naming other branches and subagents apart (spotter-4te: 3 prompts, not 5)', { timeout: 300_000 }, async () => {
    const page = await (await context(1280, false)).newPage();
    let outlined = 0;
    for (const file of firsts) {
      await page.goto(pathToFileURL(file).href);
      const { facts, outline } = await page.evaluate(() => ({ facts: document.querySelector('header.page-head .facts')?.innerText ?? '', outline: document.querySelector('details.outline > summary')?.innerText ?? '' }));
      const header = /(\d+) prompts?\b/.exec(facts)?.[1];
      const listed = /Outline: (\d+) prompts\b/.exec(outline)?.[1];
      if (listed === undefined) continue;
      outlined++;
      expect(header, file).toBe(listed);
    }
    expect(outlined).toBeGreaterThan(0);
    // The index row counts the same prompts, in the same word.
    await page.goto(pathToFileURL(path.join(site, 'index.html')).href);
    const rows: { href: string; count: string }[] = await page.evaluate(() => [...document.querySelectorAll('li.conversation')].flatMap((row: { querySelector(selector: string): { href?: string; innerText: string } | null }) => {
      const count = row.querySelector('.turns');
      return count ? [{ href: row.querySelector('a.title')!.href!, count: count.innerText }] : [];
    }));
    expect(rows.length).toBeGreaterThan(0);
    for (const { href, count } of rows) {
      expect(count, href).toMatch(/^\d+ prompts?$/);
      await page.goto(href);
      expect(await page.evaluate(() => /(\d+ prompts?)\b/.exec(document.querySelector('header.page-head .facts')?.innerText ?? '')?.[1]), href).toBe(count);
    }
    // The conversation the defect was seen on: three prompts on its own pages, one each in its two subagents.
    const spotter = firsts.find((file) => path.basename(file) === 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.html');
    expect(spotter).toBeDefined();
    await page.goto(pathToFileURL(spotter!).href);
    expect(await page.evaluate(() => document.querySelector('header.page-head .facts')?.innerText ?? '')).toMatch(/\b3 prompts · 2 subagents$/);
  });

  it('heads a conversation with its title, project, git branch, start and duration, models and tokens, and a branch page with the branch it shows', { timeout: 300_000 }, async () => {
    const page = await (await context(390, false)).newPage();
    const shown = { project: 0, gitBranch: 0, models: 0, timeline: 0 };
    for (const file of firsts) {
      await page.goto(pathToFileURL(file).href);
      const head = await page.evaluate(() => {
        const facts = document.querySelector('header.page-head .facts');
        return { title: document.querySelector('header.page-head h1')?.innerText ?? '', messages: document.querySelectorAll('main .msg, main .turn').length, time: facts?.querySelector('time')?.innerText, timeline: [...document.querySelectorAll('ol.timeline time')].map((time) => time.textContent ?? ''), tokens: facts?.querySelector('.tokens')?.innerText, project: facts?.querySelector('.project')?.innerText, gitBranch: facts?.querySelector('.git-branch')?.innerText, models: facts?.querySelector('.model')?.innerText };
      });
      expect(head.title, file).not.toBe('');
      if (head.messages > 0) {
        expect(head.time, file).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
        // The audit's timeline shows its times as the header does, never as raw ISO text.
        for (const time of head.timeline) expect(time, file).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
        expect(head.tokens, file).toMatch(/tokens/);
      }
      if (head.project) shown.project++;
      if (head.models) shown.models++;
      if (head.timeline.length > 0) shown.timeline++;
      if (head.gitBranch) {
        shown.gitBranch++;
        expect(head.gitBranch, file).toMatch(/^git (branch \S+( \(after \d+ others\))?|branches \S+(, \S+){1,2})$/);
      }
    }
    for (const [fact, count] of Object.entries(shown)) expect(count, fact).toBeGreaterThan(0);
    const branchPages = pages.filter((file) => path.basename(path.dirname(file)) === 'b' && !/-\d+\.html$/.test(file));
    expect(branchPages.length).toBeGreaterThan(0);
    for (const file of branchPages) {
      await page.goto(pathToFileURL(file).href);
      expect(await page.evaluate(() => document.querySelector('header.page-head .branch-line')?.innerText ?? ''), file).toMatch(/^(A branch of the conversation|Branch \S+)/);
    }
  });

  it('titles a subagent’s page by its task, under crumbs that name its conversation as that conversation’s page does', { timeout: 300_000 }, async () => {
    const page = await (await context(1280, false)).newPage();
    const streamPages = pages.filter((file) => path.basename(path.dirname(file)) === 's' && !/-\d+\.html$/.test(file));
    expect(streamPages.length).toBeGreaterThan(0);
    let titledByTask = 0;
    let labelledByParent = 0;
    for (const file of streamPages) {
      await page.goto(pathToFileURL(file).href);
      const seen = await page.evaluate(() => {
        const crumb = document.querySelector('header.page-head .crumbs a');
        return { heading: document.querySelector('header.page-head h1')?.innerText ?? '', crumb: crumb ? { text: crumb.innerText as string, href: crumb.href as string } : null, text: document.querySelector('main')!.innerText as string, roles: [...document.querySelectorAll('main .msg .role')].map((role) => role.innerText as string) };
      });
      // The prompts a subagent is given come from the agent that started it: none is labelled as the person's.
      expect(seen.roles.filter((role) => role !== 'Parent agent'), file).toEqual([]);
      if (seen.roles.length > 0) labelledByParent++;
      // What a subagent's page shows unfolded, its header included, is in plain words too.
      expect(seen.text.match(INTERNAL)?.[0], file).toBeUndefined();
      expect(seen.heading, file).not.toMatch(/^Child stream|^$/);
      expect(seen.heading, file).not.toMatch(UUID);
      if (!/^Subagent /.test(seen.heading)) titledByTask++;
      expect(seen.crumb, file).not.toBeNull();
      const crumb = seen.crumb!.text;
      await page.goto(seen.crumb!.href);
      expect(crumb, file).toBe(await page.evaluate(() => document.querySelector('header.page-head h1')?.innerText ?? ''));
    }
    // Most subagents were started by a call that says what they were for.
    expect(titledByTask).toBeGreaterThan(streamPages.length / 2);
    // Most subagent pages open on the prompt their parent gave, so the label above is seen, not assumed.
    expect(labelledByParent).toBeGreaterThan(streamPages.length / 2);
  });

  it('gives every page a title that means something: no UUID, no bare stream name', () => {
    for (const file of pages) {
      const title = /<title>([^<]*)<\/title>/.exec(fs.readFileSync(file, 'utf8'))?.[1] ?? '';
      expect(title, file).toMatch(/\S · Sessionizer$/);
      expect(title, file).not.toMatch(UUID);
      expect(title, file).not.toMatch(/^Child stream /);
      // A tab shows the start of a title: a page's title is never a whole long prompt.
      expect(title.length, file).toBeLessThan(130);
    }
  });

  it('links every term of the evidence folds to its entry on the glossary page', { timeout: 120_000 }, async () => {
    const glossary = fs.readFileSync(path.join(site, 'glossary.html'), 'utf8');
    const anchors = new Set<string>();
    for (const file of pages) for (const match of fs.readFileSync(file, 'utf8').matchAll(/glossary\.html#([^"]+)"/g)) anchors.add(match[1]!);
    expect(anchors.size).toBeGreaterThan(3);
    for (const anchor of anchors) expect(glossary, anchor).toContain(`id="${anchor}"`);
  });
  /** The page with the most shell calls: a Bash-heavy stretch, of many provider calls one after another. */
  const bashHeavy = (): string => pages.map((file) => ({ file, shells: fs.readFileSync(file, 'utf8').split('class="step tool t-shell').length })).sort((a, b) => b.shells - a.shells)[0]!.file;
  type Element = { matches(selector: string): boolean; children: Iterable<Element>; innerText: string; checkVisibility(): boolean; classList: { contains(name: string): boolean }; nextElementSibling: Element | null; querySelectorAll(selector: string): { length: number } & Iterable<Element> };

  for (const width of WIDTHS) {
    it(`gives a reply between two prompts one “Assistant” header on a Bash-heavy page at ${width} px, its calls’ tokens summed there`, { timeout: 120_000 }, async () => {
      const file = bashHeavy();
      const page = await (await context(width, true)).newPage();
      await page.goto(pathToFileURL(file).href);
      const seen = await page.evaluate(() => {
        // In each talk and run, in order: a prompt, a reply, a compaction's divider, or anything else.
        const sequences = [...document.querySelectorAll('main section.talk, main section.talk > div.run')].map((container: Element) =>
          [...container.children].map((child) => (child.matches('article.msg') ? 'prompt' : child.matches('article.reply') ? 'reply' : child.matches('.step.boundary, .compaction') ? 'divider' : 'other')),
        );
        const replies = [...document.querySelectorAll('main article.reply')];
        return {
          // Two replies with no prompt nor divider between them.
          repliesInARow: sequences.filter((sequence) => sequence.filter((kind) => kind !== 'other').some((kind, index, kinds) => kind === 'reply' && kinds[index - 1] === 'reply')).length,
          assistantHeaders: [...document.querySelectorAll('main .who .role')].filter((role: Element) => role.innerText === 'Assistant').length,
          replies: replies.length,
          calls: document.querySelectorAll('main article.reply div.step.call').length,
          shells: document.querySelectorAll('main details.tool.t-shell').length,
          tokens: replies.map((reply: { querySelector(selector: string): { innerText: string; title: string } | null }) => ({ shown: reply.querySelector(':scope > header .tokens')?.innerText ?? '', title: reply.querySelector(':scope > header .tokens')?.title ?? '' })),
          callHeadsShown: [...document.querySelectorAll('main .call-head')].filter((head: Element) => head.checkVisibility()).length,
          scrollWidth: document.documentElement.scrollWidth,
        };
      });
      expect(seen.shells).toBeGreaterThan(20);
      expect(seen.repliesInARow).toBe(0);
      expect(seen.assistantHeaders).toBe(seen.replies);
      // Many provider calls, few headers: a call has no header of its own.
      expect(seen.calls).toBeGreaterThan(3 * seen.replies);
      expect(seen.callHeadsShown).toBe(0);
      for (const tokens of seen.tokens.filter((entry) => entry.shown !== '')) {
        expect(tokens.shown).toMatch(/tokens in, .* out$/);
        expect(tokens.title).toMatch(/^tokens of \d+ provider calls?: input [\d,]+.*\ncall 1 at \d\d:\d\d:\d\d/);
      }
      expect(seen.tokens.filter((entry) => entry.shown !== '').length).toBeGreaterThan(0);
      expect(seen.scrollWidth).toBeLessThanOrEqual(width);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: path.join(ARTIFACTS, `reader-bash-heavy-${width}-${scheme}.png`) });
      }
    });
  }

  it('names the runtime’s records in plain words, never by a raw field name nor as raw JSON, with evidence off', { timeout: 300_000 }, async () => {
    const page = await (await context(1280, true)).newPage();
    const named = { groups: 0, hooks: 0, turns: 0, compactions: 0 };
    for (const file of pages) {
      await page.goto(pathToFileURL(file).href);
      const seen = await page.evaluate(() => ({
        text: document.querySelector('main').innerText as string,
        chrome: [...document.querySelectorAll('main :is(.runtime > summary, .runtime > .line, .runtime-group > summary, .compaction, .who)')].map((line: Element) => line.innerText),
      }));
      expect(seen.text.match(/\b(durationMs|messageCount|compactMetadata|preTokens|postTokens|hookCount|hookInfos|hookEvent|toolUseID)\b/)?.[0], file).toBeUndefined();
      expect(seen.chrome.filter((line) => line.includes('{"')), file).toEqual([]);
      named.groups += seen.chrome.filter((line) => / runtime notes\b/.test(line)).length;
      named.hooks += seen.chrome.filter((line) => /Hook · [A-Z]\w+/.test(line)).length;
      named.turns += seen.chrome.filter((line) => /Turn took \d/.test(line)).length;
      named.compactions += seen.chrome.filter((line) => /^Compacted (automatically|by \/compact): \d/.test(line)).length;
    }
    for (const [what, count] of Object.entries(named)) expect(count, what).toBeGreaterThan(0);
  });

  it('folds runtime notes next to each other into one line that counts them', { timeout: 300_000 }, async () => {
    const page = await (await context(390, false)).newPage();
    let groups = 0;
    for (const file of pages) {
      await page.goto(pathToFileURL(file).href);
      const seen = await page.evaluate(() => {
        const quiet = (element: Element | null): boolean => element !== null && (element.matches('.runtime-group') || (element.matches('.step.runtime') && !element.classList.contains('alone')));
        const groups = [...document.querySelectorAll('main .runtime-group')].map((group: Element & { querySelector(selector: string): Element | null }) => ({ label: group.querySelector(':scope > summary .label')?.innerText ?? '', inside: group.querySelectorAll(':scope > .step.runtime').length }));
        return {
          inARow: [...document.querySelectorAll('main .step.runtime, main .runtime-group')].filter((line: Element) => quiet(line) && !(line as unknown as { parentElement: Element }).parentElement.matches('.runtime-group') && quiet(line.nextElementSibling)).length,
          groups,
          scrollWidth: document.documentElement.scrollWidth,
        };
      });
      expect(seen.inARow, file).toBe(0);
      for (const group of seen.groups) expect(group.label, file).toBe(`${group.inside} runtime notes`);
      expect(seen.scrollWidth, file).toBeLessThanOrEqual(390);
      groups += seen.groups.length;
    }
    expect(groups).toBeGreaterThan(10);
  });

  it('shows nothing of a thought whose text the source did not keep, but in the evidence view, and the audit counts it', { timeout: 120_000 }, async () => {
    const file = pageHolding('class="step thinking-withheld');
    const page = await (await context(1280, true)).newPage();
    await page.goto(pathToFileURL(file).href);
    const seen = () => page.evaluate(() => ({ withheld: document.querySelectorAll('main .thinking-withheld').length, shown: [...document.querySelectorAll('main .thinking-withheld')].filter((thought: Element) => thought.checkVisibility()).length, text: document.querySelector('main').innerText as string, audit: document.querySelector('.audit').textContent as string }));
    const off = await seen();
    expect(off.withheld).toBeGreaterThan(0);
    expect(off.shown).toBe(0);
    expect(off.text).not.toContain('not held by the source');
    expect(off.text).not.toMatch(/Thinking\s*(0 B|not held)/);
    expect(off.audit).toMatch(new RegExp(`${off.withheld} thoughts? on this page had (its|their) text withheld by the source`));
    await page.click('.page-tools .evidence-on-link');
    expect((await seen()).shown).toBe(off.withheld);
  });

  for (const width of WIDTHS) {
    it(`puts a short thought’s text right under its label at ${width} px, with no blank line between them`, { timeout: 120_000 }, async () => {
      const page = await (await context(width, true)).newPage();
      await page.goto(pathToFileURL(pageHolding('<div class="step thinking"')).href);
      const gaps = await page.evaluate(() => [...document.querySelectorAll('main div.thinking')].map((step: { querySelector(selector: string): { getBoundingClientRect(): { top: number; bottom: number; height: number } } }) => {
        const label = step.querySelector(':scope > .label')!.getBoundingClientRect();
        const text = step.querySelector(':scope > .part')!.getBoundingClientRect();
        return { gap: text.top - label.bottom, line: label.height };
      }));
      expect(gaps.length).toBeGreaterThan(0);
      // The step's link to itself sits on the label's line, not on a line of its own above the text.
      for (const { gap, line } of gaps) expect(gap).toBeLessThan(line / 2);
    });
  }

  it('opens every thought with the page’s thinking switch, and without JavaScript one fold at a time', { timeout: 120_000 }, async () => {
    const file = pathToFileURL(pageHolding('<details class="step thinking"')).href;
    const open = (page: import('playwright-core').Page) => page.evaluate(() => [...document.querySelectorAll('main details.thinking')].map((fold: { open: boolean }) => fold.open));
    const page = await (await context(1280, true)).newPage();
    await page.goto(file);
    expect((await open(page)).length).toBeGreaterThan(1);
    expect(new Set(await open(page))).toEqual(new Set([false]));
    await page.click('.thinking-switch');
    expect(new Set(await open(page))).toEqual(new Set([true]));
    expect(await page.locator('.thinking-switch').textContent()).toBe('Close all thinking');
    await page.click('.thinking-switch');
    expect(new Set(await open(page))).toEqual(new Set([false]));
    const still = await (await context(1280, false)).newPage();
    await still.goto(file);
    expect(await still.locator('.thinking-switch').isVisible()).toBe(false);
    await still.click('main details.thinking > summary >> nth=0');
    expect((await open(still)).filter(Boolean).length).toBe(1);
  });

  it('hides the evidence until the page’s switch shows it, remembers the switch across a reload, and switches by a link without JavaScript', { timeout: 120_000 }, async () => {
    const file = pathToFileURL(bashHeavy()).href;
    const shown = (page: import('playwright-core').Page) => page.evaluate(() => [...document.querySelectorAll('main details.ev')].filter((fold: Element) => fold.checkVisibility()).length);
    const page = await (await context(1280, true)).newPage();
    await page.goto(file);
    expect(await page.locator('main details.ev').count()).toBeGreaterThan(10);
    expect(await shown(page)).toBe(0);
    await page.click('.page-tools .evidence-on-link');
    expect(await shown(page)).toBeGreaterThan(10);
    expect(page.url()).toBe(file);
    await page.reload();
    expect(await shown(page)).toBeGreaterThan(10);
    // Another page of the site opens with the evidence shown too.
    await page.goto(pathToFileURL(firsts.find((first) => first !== bashHeavy())!).href);
    expect(await shown(page)).toBeGreaterThan(0);
    await page.click('.page-tools .evidence-off-link');
    expect(await shown(page)).toBe(0);
    await page.goto(file);
    expect(await shown(page)).toBe(0);

    const still = await (await context(390, false)).newPage();
    await still.goto(file);
    expect(await shown(still)).toBe(0);
    await still.click('text=Show evidence');
    expect(still.url()).toBe(`${file}#evidence`);
    expect(await shown(still)).toBeGreaterThan(10);
    expect(await still.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await still.click('text=Hide evidence');
    expect(await shown(still)).toBe(0);
  });

  it('links the glossary from the audit, not from the top bar', { timeout: 120_000 }, async () => {
    const page = await (await context(1280, false)).newPage();
    for (const file of firsts.slice(0, 5)) {
      await page.goto(pathToFileURL(file).href);
      expect(await page.locator('nav.top a[href$="glossary.html"]').count(), file).toBe(0);
      expect(await page.locator('.audit a[href$="glossary.html"]').count(), file).toBeGreaterThan(0);
    }
  });
});
