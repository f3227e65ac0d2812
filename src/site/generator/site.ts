// The site stage of an export: from `<export>/bundle` only, into `<export>/site`.
// buildSite reads as the sequence of the step:
//
// 1. find each conversation's finished pages in the store (page-store.ts,
//    reached like every cache through caches.ts), under a key of its bundle
//    files and of this code; when every conversation's entry and the site's
//    own are finished, place them and start nothing;
// 2. otherwise render (render): in child processes, each with a SiteInput
//    (generator/site-input.ts) naming the bundle and the conversations it
//    renders. Every child renders with the kept renderer
//    (kept-renderer.ts, render.mjs), which starts no Astro and builds
//    nothing; when none is kept for this code, it is made first, as `npm ci`
//    makes it (makeRenderer: an Astro build of no page, astro-build.mjs, in
//    a throwaway root under node_modules, so that its `.astro` folder and
//    vite cache never land in the repository or the export). With enough to
//    render, one child per core shares the conversations out (shareOut),
//    since one renders on one thread. Code is left plain on the pages, for
//    the browser to highlight when it is shown (browser-highlight.ts). The
//    export's first child may have rendered the conversations that changed
//    already, while the bundle was placed (renderAhead): their pages are
//    linked from where it wrote them. Each child cuts a conversation's
//    pages from its talks' HTML, each talk rendered once (generator/talk-pages.ts);
//    A child writes each conversation's search script with its pages;
// 3. write the public files and the highlight style sheet (the renderer
//    made each page's links relative, since file:// has no server root);
// 4. keep what was rendered in the store, and place every other
//    conversation's pages from it.
//
// The site is most of an export's time, so rendering only what changed is
// what lets a second export after one conversation changed cost a small
// part of the first.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAGE_BUDGET } from '../models/page-files.ts';
import { claimedBy, renderedFiles, type EarlierPages, type SelectedConversation, type SiteSelection } from './site-input.ts';
import { UNOBSERVED, type StepObserver } from '../../bundle/steps.ts';
import { removeWhatEndedProcessesLeft } from '../../files/process.ts';
import type { StampsRecord } from '../../files/file-stamp.ts';
import { compareBytes, conversationsOfBundle, exportFiles } from '../../bundle/manifest.ts';
import { highlightStyleSheet } from './highlight-style.ts';
import { pagesUnder } from './relative-links.ts';
import { siteChildEnvironment, startChild, type Child } from './child.ts';
import { giveWork, startRenderer, type RenderedAhead, type WaitingRenderer } from './renderer-child.ts';
import { linkOrCopy } from './link-or-copy.ts';
import type { Finished } from './page-store.ts';
import { SiteCaches } from './caches.ts';
import { refusedWriteCode } from '../../files/write-failure.ts';
import { browserCodeBeside, filesUnder, keepRenderer, keptRenderer, siteBuildRoots, siteCode } from './kept-renderer.ts';
import { placeEvidence, writeEvidenceOnThread, ZSTD_DECODER, zstdDecoderScript } from './evidence-pages.ts';

export interface SiteResult {
  readonly pages: number;
  /** Pages rendered by this build; the others were copied from the cache of finished pages. */
  readonly built: number;
  /** Of the pages not rendered, those of conversations rendered again that were the bytes of their earlier render, as their models did not change (models/view-digests.ts). */
  readonly keptFromEarlier: number;
  readonly largestPage: { readonly file: string; readonly bytes: number };
  /** The pages of a conversation, a branch or a child stream over the page budget: each holds one talk larger than the budget alone. */
  readonly overBudget: readonly { readonly file: string; readonly bytes: number }[];
  /** The most bytes a page may hold (models/page-files.ts): said here so that a caller reporting on pages need not load the site's page code. */
  readonly pageBudget: number;
  /**
   * The SHA-256 of site files, by path from the site root, where this build
   * knows it: every file, when finished pages are kept. The manifest takes
   * them rather than reading the pages again.
   */
  readonly digests: ReadonlyMap<string, string>;
  /** The sizes of site files, by path from the site root, where this build knows them from their stamps: every file, when finished pages are kept. */
  readonly sizes: ReadonlyMap<string, number>;
  readonly milliseconds: number;
  /**
   * The record of the stamps of the pages the site's cache keeps, saved once
   * the earlier export is gone, whose links to them change their change
   * times (PageStore.stampsRecord); none when the cache keeps none.
   */
  readonly keptPageStamps?: StampsRecord;
}

/** The pages of a conversation, a branch or a child stream (models/plan.ts); the evidence pages under e/ hold whole rows and are not split. */
const CONVERSATION_PAGE = /^[cbs]\//;

const CONFIG = fileURLToPath(new URL('../../../astro.config.mjs', import.meta.url));
const ASTRO_BUILD = fileURLToPath(new URL('./astro-build.mjs', import.meta.url));
const PUBLIC = fileURLToPath(new URL('../../../public', import.meta.url));

export interface SiteOptions {
  /**
   * A digest of each conversation's bundle files, by conversation: what its
   * pages are a function of. Conversations named here with a finished entry
   * in the cache are not rendered again. Without it, everything is rendered.
   */
  readonly inputs?: ReadonlyMap<string, string>;
  readonly observer?: StepObserver;
  /**
   * How many renderer children share the rendering out, at once. By
   * default, one per core (up to MOST_BUILDS) when there is enough to
   * render (shareOut).
   */
  readonly builds?: number;
  /**
   * Where the builds run and the renderer is kept: inside node_modules, so
   * that they resolve astro and the site's packages from the project. By
   * default node_modules/.cache/sessionizer-site, or, when this user cannot
   * write there, a private folder that links to the project's node_modules
   * (siteBuildRoots); a test that must not share its kept renderer with the
   * others gives a folder of its own under it.
   */
  readonly buildRoots?: string;
  /**
   * A renderer child the export started as it began (renderer-child.ts),
   * which has loaded the kept renderer meanwhile: the site step's first
   * child, when it renders with that renderer. The site step stops it as
   * soon as it knows it will not take it; whoever started it stops it too
   * once the export ends (WaitingRenderer.dismiss), whatever happened.
   */
  readonly waitingRenderer?: WaitingRenderer;
}

export async function buildSite(bundle: string, out: string, cache: string, options: SiteOptions = {}): Promise<SiteResult> {
  const started = performance.now();
  const caches = new SiteCaches(cache);
  caches.removeEarlierForms();
  const observer = options.observer ?? UNOBSERVED;
  // The code as the export began, when it started a renderer child then: the
  // child loaded the renderer kept for it, and what it rendered ahead is
  // keyed by it (renderAhead).
  const code = options.waitingRenderer?.code ?? siteCode();
  const store = caches.finishedPages(code);
  // In the bundle's order (conversationsOfBundle), whatever order the
  // caller named them in: the site lists its conversations in this order,
  // and it is a function of the bundle alone.
  const inputs = options.inputs && new Map([...options.inputs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const finished = inputs ? store.find(inputs) : undefined;
  let pages: { file: string; bytes: number }[];
  let built = 0;
  let keptFromEarlier = 0;
  let keptPageStamps: StampsRecord | undefined;
  const digests = new Map<string, string>();
  if (finished) {
    // When the site's own entry and every conversation's are finished,
    // Astro is not started at all.
    const site = store.siteEntry(finished);
    if (site.render || finished.some(({ render }) => render)) {
      const rendering = await render(bundle, out, code, { finished, earlier: store.earlierPages(finished), placeKept: () => store.placeFinished(out, finished, digests) }, observer, options);
      const placed = rendering.placedMeanwhile ?? store.placeFinished(out, finished, digests);
      keptFromEarlier = store.keptFromEarlier(finished);
      built = rendering.pages.length - keptFromEarlier;
      const rendered = new Set(finished.flatMap(({ render, pages: of }) => (render ? of() : [])));
      store.keep(out, site, exportFiles(out).files.filter((file) => !rendered.has(file) && !placed.has(file)), digests);
    } else {
      // Nothing to render: the waiting child goes now, not once the export ends.
      void options.waitingRenderer?.dismiss();
      store.place(site, out, digests);
      store.placeFinished(out, finished, digests);
    }
    store.keepRendered(out, finished, site, digests);
    keptPageStamps = store.stampsRecord([...finished, site]);
    pages = [...store.sizes].filter(([file]) => file.endsWith('.html')).sort(([a], [b]) => compareBytes(a, b)).map(([file, bytes]) => ({ file, bytes }));
  } else {
    const rendering = await render(bundle, out, code, undefined, observer, options);
    pages = rendering.pages;
    built = pages.length;
  }
  observer.advance(built, 0);
  let largestPage = { file: '', bytes: 0 };
  for (const page of pages) if (page.bytes > largestPage.bytes) largestPage = page;
  const overBudget = pages.filter(({ file, bytes }) => bytes > PAGE_BUDGET && CONVERSATION_PAGE.test(file));
  return { pages: pages.length, built, keptFromEarlier, largestPage, overBudget, pageBudget: PAGE_BUDGET, digests, sizes: store.sizes, milliseconds: performance.now() - started, ...(keptPageStamps !== undefined ? { keptPageStamps } : {}) };
}

/**
 * Renders the site, every conversation or those `store.finished` says to
 * render, with the pages of their earlier renders (`store.earlier`);
 * returns the pages written. Every page is rendered by the renderer kept
 * for this `code` (render.mjs), made first when none is (makeRenderer), as
 * `npm ci` makes it: there is no other way to render a page. The first
 * child is the one the export started as it began (SiteOptions.waitingRenderer),
 * when it loaded the renderer kept now; the others start here.
 *
 * `store.placeKept` places the pages of the other conversations, and the
 * site's files that are no page are written, as the children render: this
 * thread only waits for them then, and the renderer writes only the pages
 * it renders. What was placed is returned as `placedMeanwhile`, and left out
 * of the pages written; what went wrong meanwhile is the site's failure once
 * the children are done, not the renderer's.
 */
async function render(bundle: string, out: string, code: string, store: { finished: readonly Finished[]; earlier: Map<string, EarlierPages>; placeKept: () => ReadonlySet<string> } | undefined, observer: StepObserver, { builds, buildRoots: roots = siteBuildRoots(), waitingRenderer }: SiteOptions): Promise<{ pages: { file: string; bytes: number }[]; placedMeanwhile?: ReadonlySet<string> }> {
  // Inside node_modules (or a folder linked to it, siteBuildRoots), so that
  // a build of the renderer resolves astro and the site's packages from the
  // project, yet outside what git tracks; removed once the site is written.
  fs.mkdirSync(roots, { recursive: true });
  removeAbandonedRoots(roots);
  const root = fs.mkdtempSync(path.join(roots, `astro-${process.pid}-`));
  const input = { bundle: path.resolve(bundle) };
  // Every conversation's plan is saved, in the cache or in the throwaway
  // root: the search index is written from them after the rendering.
  const conversations: SelectedConversation[] = store
    ? selectedOf(store.finished, store.earlier)
    : conversationsOfBundle(bundle).map((id, index) => ({ id, render: true, plan: path.join(root, 'plans', `${index}.json`) }));
  // What a rendering that failed wrote is removed before the next; anything else is left as it was.
  const before = new Set(fs.existsSync(out) ? filesUnder(out) : []);
  let placedMeanwhile: ReadonlySet<string> | undefined;
  let failedMeanwhile: { error: unknown } | undefined;
  const staging = path.join(root, 'evidence');
  const evidenceOf = conversations.filter(({ render }) => render);
  const evidence = writeEvidenceOnThread(bundle, staging, evidenceOf, code);
  // Awaited below; should rendering fail first, its failure is the error.
  evidence.catch(() => undefined);
  let aheadFolder: string | undefined;
  try {
    const kept = keptRenderer(code, roots);
    // The child the export started loaded the renderer kept then: it is the
    // lead of the first attempt when that is the renderer kept now, and has
    // rendered what the export gave it ahead, or renders it first.
    const waiting = kept !== undefined ? waitingRenderer?.take(kept) : undefined;
    if (waiting === undefined) void waitingRenderer?.dismiss();
    aheadFolder = waiting?.ahead?.output;
    let renderer = kept ?? (await makeRenderer(path.join(root, 'renderer'), code, observer, roots));
    // The children claim the conversations to render as they go; the
    // helpers render their pages into folders of their own, the lead into
    // the site, with the index and search pages, which list every
    // conversation, from the plans the helpers save.
    const attempt = async (renderer: string, name: string, lead: { child: Child; ahead: RenderedAhead | undefined } | undefined): Promise<void> => {
      // What the lead rendered ahead is no other child's to render: its
      // plans are read as those of conversations whose pages were kept. A
      // plan saved elsewhere was made for other bundle files or other code,
      // and is not this step's: that conversation is rendered again.
      const ahead = new Set(conversations.filter(({ id, render, plan }) => render && lead?.ahead?.plans.get(id) === plan).map(({ id }) => id));
      const sharing = shareOut(bundle, conversations.filter(({ id, render }) => render && !ahead.has(id)).map(({ id }) => id), builds);
      const helpers = sharing.builds - 1;
      const claims = helpers > 0 ? { folder: path.join(root, `${name}-claims`), order: sharing.order } : undefined;
      if (claims !== undefined) fs.mkdirSync(claims.folder);
      const selection: SiteSelection = { conversations: conversations.map((selected) => (ahead.has(selected.id) ? { id: selected.id, render: false, plan: selected.plan } : selected)), code, ...(claims !== undefined ? { claims } : {}) };
      const start = (selected: SiteSelection, output: string, started?: Child): Child => giveWork(started ?? startRenderer(renderer, root), { input: { ...input, selection: selected }, output });
      const helperChildren = Array.from({ length: helpers }, (_, index) => {
        const output = path.join(root, `${name}-helper-${index + 1}-site`);
        return { output, child: start({ ...selection, siteWidePages: false }, output) };
      });
      const children = [start(selection, path.resolve(out), lead?.child), ...helperChildren.map(({ child }) => child)];
      placedMeanwhile = undefined;
      failedMeanwhile = undefined;
      try {
        if (store !== undefined) placedMeanwhile = store.placeKept();
        // While the children render: the renderer writes pages alone.
        await writeSiteFiles(out, renderer);
      } catch (error) {
        failedMeanwhile = { error };
      }
      await allSucceed(children, observer);
      const helperOutput = new Map(helperChildren.map(({ output, child }) => [child.pid, output]));
      for (const selected of conversations) {
        const output = ahead.has(selected.id) ? lead!.ahead!.output : claims !== undefined && selected.render ? helperOutput.get(claimedBy(claims.folder, selected.id)!) : undefined;
        if (output === undefined) continue;
        for (const file of renderedFiles(selected.id, selected.plan)) linkOrCopy(output, out, file);
      }
    };
    try {
      await attempt(renderer, 'rendering', waiting);
    } catch (error) {
      // Stopped with the others when one failed; stopped here should the
      // attempt have failed before they had their work, which they would wait for.
      waiting?.child.stop();
      // A renderer that fails is made again, once, and renders the site
      // again: should the fault be in the bundle rather than in the
      // renderer, the new one fails the same way, and that is the error. A
      // write the file system refused (a full disk) is no fault of the
      // renderer's, and would be met again: it is the error at once.
      if (refusedWriteCode(error) !== undefined) throw error;
      fs.rmSync(path.dirname(renderer), { recursive: true, force: true });
      for (const file of fs.existsSync(out) ? filesUnder(out) : []) if (!before.has(file)) fs.rmSync(file);
      // The plans the failed attempt saved, which the new lead would read rather than wait for the new children's.
      for (const { render, plan } of conversations) if (render && plan !== '') fs.rmSync(plan, { force: true });
      renderer = await makeRenderer(path.join(root, 'renderer-again'), code, observer, roots);
      await attempt(renderer, 'again', undefined);
    }
    await evidence;
    placeEvidence(staging, out);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    if (aheadFolder !== undefined) fs.rmSync(aheadFolder, { recursive: true, force: true });
  }
  if (failedMeanwhile) throw failedMeanwhile.error;
  return { pages: pagesUnder(out, undefined, placedMeanwhile ?? new Set()), ...(placedMeanwhile !== undefined ? { placedMeanwhile } : {}) };
}

/**
 * Gives the export's waiting renderer child (renderer-child.ts) the
 * conversations of `inputs` (digests of their bundle files, by
 * conversation, as SiteOptions.inputs) whose pages are not finished in the
 * store, to render before the site step, while the export places the rest
 * of the bundle, when there are few enough for one child (shareOut). Their
 * files under `bundle` are in place, and stay as they are. They are keyed
 * by the code the child's renderer was kept for: the site step renders
 * again any conversation whose key it finds different, its bundle files
 * or the code having changed since (render).
 */
export function renderAhead(bundle: string, cache: string, inputs: ReadonlyMap<string, string>, waitingRenderer: WaitingRenderer, roots = siteBuildRoots()): void {
  const code = waitingRenderer.code;
  const store = new SiteCaches(cache).finishedPages(code);
  const due = store.find(inputs).filter(({ render }) => render);
  if (due.length === 0 || shareOut(bundle, due.map(({ id }) => id), undefined).builds > 1) return;
  const selection: SiteSelection = { conversations: selectedOf(due, store.earlierPages(due)), code, siteWidePages: false };
  const output = fs.mkdtempSync(path.join(roots, `astro-${process.pid}-`));
  if (!waitingRenderer.renderAhead({ bundle: path.resolve(bundle), selection }, output)) fs.rmSync(output, { recursive: true, force: true });
}

/** The conversations of the store's entries as a renderer child is given them, each to render with the pages of its earlier render, when it has one (PageStore.earlierPages). */
function selectedOf(finished: readonly Finished[], earlier: ReadonlyMap<string, EarlierPages>): SelectedConversation[] {
  return finished.map(({ id, render, plan }) => ({ id, render, plan, ...(render && earlier.has(id) ? { earlier: earlier.get(id)! } : {}) }));
}

/**
 * Makes the renderer of `code` in `folder` and keeps it; returns its entry
 * point. An Astro build (astro-build.mjs, plain node rather than the tsx
 * loader) of the site's code, which renders no page: its server chunks are
 * the renderer (kept-renderer.ts). A build that fails keeps nothing, and its
 * error is the site's.
 */
async function makeRenderer(folder: string, code: string, observer: StepObserver, roots: string): Promise<string> {
  fs.mkdirSync(folder);
  // Astro joins the config file to the root, so it is given relative to it.
  await allSucceed([startChild(ASTRO_BUILD, [folder, path.relative(folder, CONFIG), path.join(folder, 'site')], folder, siteChildEnvironment())], observer);
  await keepRenderer(path.join(folder, 'server'), code, roots);
  const entry = keptRenderer(code, roots);
  if (entry === undefined) throw new Error(`the Astro build of the site's renderer (${ASTRO_BUILD}) wrote no server entry point to keep`);
  return entry;
}

/**
 * Makes the renderer of the current code, unless one is kept already: what
 * `npm ci` does (scripts/prepare.ts), so that the first export starts
 * rendering at once. Says whether one was kept already, was made now, or
 * could not be: the export then tries again, and says why it cannot.
 */
export async function prepareRenderer(roots = siteBuildRoots()): Promise<'kept' | 'made' | 'failed'> {
  const code = siteCode();
  if (keptRenderer(code, roots) !== undefined) return 'kept';
  fs.mkdirSync(roots, { recursive: true });
  removeAbandonedRoots(roots);
  const root = fs.mkdtempSync(path.join(roots, `astro-${process.pid}-`));
  try {
    await makeRenderer(path.join(root, 'renderer'), code, UNOBSERVED, roots);
    return 'made';
  } catch {
    return 'failed';
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The site's files that are no page: the public folder's, the highlight
 * style sheet, the evidence pages' zstd decoder, and the browser's
 * highlighter with its grammars, linked from the renderer `renderer` keeps
 * beside it (browser-code.ts).
 */
async function writeSiteFiles(out: string, renderer: string): Promise<void> {
  fs.cpSync(PUBLIC, out, { recursive: true });
  fs.writeFileSync(path.join(out, 'highlight.css'), await highlightStyleSheet());
  fs.writeFileSync(path.join(out, ZSTD_DECODER), zstdDecoderScript());
  const code = browserCodeBeside(renderer);
  for (const file of filesUnder(code)) linkOrCopy(path.dirname(code), out, path.relative(path.dirname(code), file));
}

/**
 * Removes the build roots of processes no longer running. An export stopped
 * by Ctrl-C or SIGTERM during the build ends at once (the signal is passed
 * on to the build, then to this process), so its root is never removed by
 * the build that made it.
 */
function removeAbandonedRoots(roots: string): void {
  removeWhatEndedProcessesLeft(roots, (name) => /^astro-(\d+)-/.exec(name)?.[1]);
}

/**
 * How many children render `ids` at once, and the order in which they claim
 * them (SiteSelection.claims): the largest first. Unless told otherwise,
 * one child for the first BYTES_PER_CHILD of bundle to render and one more
 * for each BYTES_PER_CHILD after it, at most one per core and MOST_BUILDS.
 * A child of the kept renderer starts in a fraction of a second, but loads
 * its own renderer and reads its own conversations' rows, which a site of a
 * few conversations does not win back.
 */
export function shareOut(bundle: string, ids: readonly string[], builds: number | undefined): { builds: number; order: string[] } {
  const weighed = ids.map((id) => ({ id, bytes: bytesUnder(path.join(bundle, id)) + bytesUnder(path.join(bundle, '_conversations', id)) }));
  const total = weighed.reduce((sum, { bytes }) => sum + bytes, 0);
  const count = Math.max(1, Math.min(ids.length, builds ?? Math.min(os.availableParallelism(), MOST_BUILDS, 1 + Math.floor(total / BYTES_PER_CHILD))));
  return { builds: count, order: weighed.sort((a, b) => b.bytes - a.bytes).map(({ id }) => id) };
}

/**
 * How much more bundle each child past the first must have to render to be
 * worth its start: a second child renders the site of the real corpus
 * (112 MB of bundle) in two thirds of one child's time, and the site of
 * 18 MB of bundle in five conversations no faster
 * (bench/results/measurements-behind-choices.md); this puts the second child at 32 MiB.
 */
export const BYTES_PER_CHILD = 32 * 1024 * 1024;
/** Children at once, at most: each holds its own renderer and the conversation it renders. */
const MOST_BUILDS = 4;

function bytesUnder(folder: string): number {
  return fs.existsSync(folder) ? filesUnder(folder).reduce((bytes, file) => bytes + fs.statSync(file).size, 0) : 0;
}

/**
 * Waits for builds that run at once; when one fails, the others are
 * stopped (the lead may be waiting for a plan the failed one never saves),
 * and the first failure is the error. Their memory counts as one sum: they
 * held it at the same time.
 */
async function allSucceed(children: readonly Child[], observer: StepObserver): Promise<void> {
  let failure: { error: unknown } | undefined;
  const fail = (error: unknown, failed: Child): void => {
    if (failure) return;
    failure = { error };
    for (const other of children) if (other !== failed) other.stop();
  };
  const outcomes = await Promise.allSettled(children.map((child) => child.done.catch((error: unknown) => {
    fail(error, child);
    throw error;
  })));
  if (failure) throw failure.error;
  observer.childMemory?.(outcomes.reduce((sum, outcome) => sum + (outcome as PromiseFulfilledResult<number>).value, 0));
}
