// The site stage of an export: from `<export>/bundle` only, into `<export>/site`.
// buildSite reads as the sequence of the step:
//
// 1. find each conversation's finished pages in the store (page-store.ts),
//    under a key of its bundle files and of this code; when every
//    conversation's entry and the site's own are finished, place them and
//    start nothing;
// 2. otherwise render (render): in child processes, each with a SiteInput
//    (data/site-input.ts) naming the bundle, the highlight cache and the
//    conversations it renders. A child renders with the renderer an earlier
//    build kept (kept-renderer.ts, render.mjs), which starts no Astro and
//    builds nothing, else it is an Astro build (astro-build.mjs, plain node
//    rather than the tsx loader) in a throwaway root under node_modules, so
//    its `.astro` folder and vite cache never land in the repository or the
//    export; that build's renderer is kept for the next time. With enough
//    to render, one child per core shares the conversations out (shareOut),
//    since one renders on one thread; a site shared out with no renderer
//    kept has one made first, by a build of no conversation. Pages
//    highlight their code as they render, through a cache on disk, so a
//    second export of the same conversations highlights nothing;
//    Each child cuts a conversation's pages from its talks' HTML, rendered
//    once (data/talk-pages.ts);
// 3. write the search scripts from what the children saved beside their
//    plans, the highlight style sheet, and make every link relative, since
//    Astro emits `/_astro/...` and file:// has no server root;
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
import { cachedBlocks, removeEarlierBlocks } from '../data/highlighted.ts';
import { PAGE_BUDGET } from '../data/page-files.ts';
import { readSavedPlan, SEARCH_SCRIPTS, searchScriptBeside, searchScriptOf, type EarlierPages, type SelectedConversation, type SiteInput, type SiteSelection } from '../data/site-input.ts';
import { UNOBSERVED, type StepObserver } from '../../bundle/steps.ts';
import { removeWhatEndedProcessesLeft } from '../../files/process.ts';
import type { StampsRecord } from '../../files/file-stamp.ts';
import { compareBytes, conversationsOfBundle, exportFiles } from '../../bundle/manifest.ts';
import { highlightStyleSheet } from './highlight-style.ts';
import { pagesUnder, relativeLinks } from './relative-links.ts';
import { siteChildEnvironment, startChild, type Child } from './child.ts';
import { linkOrCopy } from './link-or-copy.ts';
import { PageStore, type Finished } from './page-store.ts';
import { refusedWriteCode } from '../../files/write-failure.ts';
import { filesUnder, keepRenderer, keptRenderer, RENDER, siteBuildRoots, siteCode, type WaitingRenderer } from './kept-renderer.ts';
import { placeEvidence, writeEvidenceOnThread, ZSTD_DECODER, zstdDecoderScript } from './evidence-pages.ts';

export interface SiteResult {
  readonly pages: number;
  /** Pages rendered by this build; the others were copied from the cache of finished pages. */
  readonly built: number;
  /** Of the pages not rendered, those of conversations rendered again that were the bytes of their earlier render, as their models did not change (data/earlier-pages.ts). */
  readonly keptFromEarlier: number;
  /** Of the pages built, or kept from their earlier render, those the waiting renderer rendered or kept before the site step, from the storage zone (render-ahead.ts). */
  readonly renderedAhead: number;
  /** Code blocks highlighted by this build; the others came from the cache or stayed plain. */
  readonly highlighted: number;
  readonly largestPage: { readonly file: string; readonly bytes: number };
  /** True when the pages built were rendered by the renderer an earlier build kept, with no Astro build. */
  readonly byKeptRenderer: boolean;
  /** Why the kept renderer failed, when it did and a build rendered the pages instead. */
  readonly rendererFailure?: string;
  /** The pages of a conversation, a branch or a child stream over the page budget: each holds one talk larger than the budget alone. */
  readonly overBudget: readonly { readonly file: string; readonly bytes: number }[];
  /** The most bytes a page may hold (data/page-files.ts): said here so that a caller reporting on pages need not load the site's page code. */
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

/** The pages of a conversation, a branch or a child stream (data/plan.ts); the evidence pages under e/ hold whole rows and are not split. */
const CONVERSATION_PAGE = /^[cbs]\//;

const CONFIG = fileURLToPath(new URL('../../../astro.config.mjs', import.meta.url));
const ASTRO_BUILD = fileURLToPath(new URL('./astro-build.mjs', import.meta.url));
const PUBLIC = fileURLToPath(new URL('../../../public/', import.meta.url));

export interface SiteOptions {
  /**
   * A digest of each conversation's bundle files, by conversation: what its
   * pages are a function of. Conversations named here with a finished entry
   * in the cache are not rendered again. Without it, everything is rendered.
   */
  readonly inputs?: ReadonlyMap<string, string>;
  readonly observer?: StepObserver;
  /**
   * How many Astro builds share the rendering out, at once. By default, one
   * per core (up to MOST_BUILDS) when there is enough to render.
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
   * A renderer child started earlier (kept-renderer.ts), to render the
   * lead's pages when it loaded the renderer this site renders with; it is
   * dismissed otherwise, whatever the site does.
   */
  readonly waitingRenderer?: WaitingRenderer;
}

export async function buildSite(bundle: string, out: string, cache: string, options: SiteOptions = {}): Promise<SiteResult> {
  try {
    const started = performance.now();
    removeEarlierBlocks(cache);
    // A waiting renderer told to render ahead highlights into the cache from then on.
    const entriesBefore = (options.waitingRenderer?.cache === path.resolve(cache) ? options.waitingRenderer.blocksBeforeAhead : undefined) ?? cachedBlocks(cache);
    const observer = options.observer ?? UNOBSERVED;
    // The waiting renderer's child was started for the code it read.
    const code = options.waitingRenderer?.code ?? siteCode();
    const store = new PageStore(cache, code);
    // In the bundle's order (conversationsOfBundle), whatever order the
    // caller named them in: the site lists its conversations in this order,
    // and it is a function of the bundle alone.
    const inputs = options.inputs && new Map([...options.inputs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const finished = inputs ? store.find(inputs) : undefined;
    let pages: { file: string; bytes: number }[];
    let built = 0;
    let keptFromEarlier = 0;
    let byKeptRenderer = false;
    let rendererFailure: string | undefined;
    let keptPageStamps: StampsRecord | undefined;
    const digests = new Map<string, string>();
    if (finished) {
      // When the site's own entry and every conversation's are finished,
      // Astro is not started at all.
      const site = store.siteEntry(finished);
      if (site.render || finished.some(({ render }) => render)) {
        const rendering = await render(bundle, out, cache, code, { finished, earlier: store.earlierPages(finished), placeKept: () => store.placeFinished(out, finished, digests) }, observer, options);
        const placed = rendering.placedMeanwhile ?? store.placeFinished(out, finished, digests);
        keptFromEarlier = store.keptFromEarlier(finished);
        built = rendering.pages.length - keptFromEarlier;
        ({ byKeptRenderer, rendererFailure } = rendering);
        const rendered = new Set(finished.flatMap(({ render, pages: of }) => (render ? of() : [])));
        store.keep(out, site, exportFiles(out).files.filter((file) => !rendered.has(file) && !placed.has(file)), digests);
      } else {
        store.place(site, out, digests);
        store.placeFinished(out, finished, digests);
      }
      store.keepRendered(out, finished, site, digests);
      keptPageStamps = store.stampsRecord([...finished, site]);
      pages = [...store.sizes].filter(([file]) => file.endsWith('.html')).sort(([a], [b]) => compareBytes(a, b)).map(([file, bytes]) => ({ file, bytes }));
    } else {
      const rendering = await render(bundle, out, cache, code, undefined, observer, options);
      pages = rendering.pages;
      built = pages.length;
      ({ byKeptRenderer, rendererFailure } = rendering);
    }
    observer.advance(built, 0);
    let largestPage = { file: '', bytes: 0 };
    for (const page of pages) if (page.bytes > largestPage.bytes) largestPage = page;
    const overBudget = pages.filter(({ file, bytes }) => bytes > PAGE_BUDGET && CONVERSATION_PAGE.test(file));
    // Pages of the waiting renderer's render ahead are in the site only when it rendered the site.
    const renderedAhead = byKeptRenderer && options.waitingRenderer?.used ? options.waitingRenderer.renderedAhead : 0;
    return { pages: pages.length, built, keptFromEarlier, renderedAhead, highlighted: cachedBlocks(cache) - entriesBefore, largestPage, byKeptRenderer, ...(rendererFailure !== undefined ? { rendererFailure } : {}), overBudget, pageBudget: PAGE_BUDGET, digests, sizes: store.sizes, milliseconds: performance.now() - started, ...(keptPageStamps !== undefined ? { keptPageStamps } : {}) };
  } finally {
    // Unused, when nothing was rendered or a build rendered instead.
    options.waitingRenderer?.dismiss();
  }
}

/**
 * Renders the site, every conversation or those `store.finished` says to
 * render, with the pages of their earlier renders (`store.earlier`);
 * returns the pages written. With the renderer an earlier build of this
 * `code` kept, each child renders its pages with it and Astro is not started
 * (render.mjs); otherwise the children are Astro builds, and the lead's
 * renderer is kept for the next time.
 *
 * With the kept renderer, `store.placeKept` places the pages of the other
 * conversations, and the site's files that are no page are written, as the
 * children render: this thread only waits for them then, and the renderer
 * writes only the pages it renders (an Astro build empties its output folder
 * as it starts). What was placed is returned as `placedMeanwhile`, and left
 * out of the pages written; what went wrong meanwhile is the site's failure
 * once the children are done, not the renderer's.
 */
async function render(bundle: string, out: string, cache: string, code: string, store: { finished: readonly Finished[]; earlier: Map<string, EarlierPages>; placeKept: () => ReadonlySet<string> } | undefined, observer: StepObserver, { builds, buildRoots: roots = siteBuildRoots(), waitingRenderer }: SiteOptions): Promise<{ pages: { file: string; bytes: number }[]; byKeptRenderer: boolean; rendererFailure?: string; placedMeanwhile?: ReadonlySet<string> }> {
  // Inside node_modules (or a folder linked to it, siteBuildRoots), so that
  // the build resolves astro and the site's packages from the project, yet
  // outside what git tracks; removed after the build.
  fs.mkdirSync(roots, { recursive: true });
  removeAbandonedRoots(roots);
  const root = fs.mkdtempSync(path.join(roots, `astro-${process.pid}-`));
  const input = { bundle: path.resolve(bundle), cache: path.resolve(cache) };
  // Every conversation's plan is saved, in the cache or in the throwaway
  // root: the search index is written from them after the build.
  const conversations: SelectedConversation[] = store
    ? store.finished.map(({ id, render, plan }) => ({ id, render, plan, ...(render && store.earlier.has(id) ? { earlier: store.earlier.get(id)! } : {}) }))
    : conversationsOfBundle(bundle).map((id, index) => ({ id, render: true, plan: path.join(root, 'plans', `${index}.json`) }));
  const [, ...helpers] = shareOut(bundle, conversations.filter(({ render }) => render).map(({ id }) => id), builds);
  let renderer = keptRenderer(code, roots);
  let rendererFailure: string | undefined;
  let placedMeanwhile: ReadonlySet<string> | undefined;
  let failedMeanwhile: { error: unknown } | undefined;
  const staging = path.join(root, 'evidence');
  const evidenceOf = conversations.filter(({ render }) => render);
  const evidence = writeEvidenceOnThread(bundle, staging, evidenceOf, code);
  // Awaited below; should rendering fail first, its failure is the error.
  evidence.catch(() => undefined);
  try {
    // A site shared out between children: rather than each paying Astro's
    // start and Vite's build, one build of no conversation makes the
    // renderer first, and every child renders with it.
    if (helpers.length > 0 && renderer === undefined) {
      await buildRenderer(path.join(root, 'renderer'), code, observer, roots);
      renderer = keptRenderer(code, roots);
    }
    // Astro writes its server-side chunks inside the working folder (see
    // astro-build.mjs); from the throwaway root they import astro and the
    // site's packages from the project and leave no trace but the kept
    // renderer.
    // Astro joins the config file to the root, so it is given relative to it.
    // The helpers render their conversations' pages into folders of their
    // own; the lead renders the rest, and the index and search pages, which
    // list every conversation, from the plans the helpers save.
    // One attempt: each child renders with the kept renderer when there is
    // one, else builds with Astro.
    const attempt = async (renderer: string | undefined, name: string): Promise<void> => {
      const start = (child: string, selection: SiteSelection, output: string, waiting?: WaitingRenderer): Child => startSiteChild(path.join(root, `${name}-${child}`), { ...input, selection }, output, renderer, waiting);
      const helperBuilds = helpers.map((group, index) => {
        const output = path.join(root, `${name}-helper-${index + 1}-site`);
        return { group, output, child: start(`helper-${index + 1}`, { conversations: conversations.filter(({ id }) => group.has(id)), code }, output) };
      });
      const renderedBy = new Map(helperBuilds.flatMap(({ group, child }) => [...group].map((id) => [id, child.pid] as const)));
      const leadSelection: SiteSelection = { conversations: conversations.map((selected) => (renderedBy.has(selected.id) ? { ...selected, render: false, renderedBy: renderedBy.get(selected.id)! } : selected)), code };
      const children = [start('lead', leadSelection, path.resolve(out), waitingRenderer), ...helperBuilds.map(({ child }) => child)];
      placedMeanwhile = undefined;
      failedMeanwhile = undefined;
      if (renderer !== undefined) {
        try {
          if (store !== undefined) placedMeanwhile = store.placeKept();
          // While the children render: the renderer writes pages alone.
          await writeSiteFiles(out, false);
        } catch (error) {
          failedMeanwhile = { error };
        }
      }
      await allSucceed(children, observer);
      // An Astro build empties its output folder as it starts, and copies the public folder itself.
      if (renderer === undefined) {
        await keepRenderer(path.join(root, `${name}-lead`, 'server'), code, roots);
        await writeSiteFiles(out, true);
      }
      for (const { group, output } of helperBuilds) {
        for (const selected of conversations) {
          if (!group.has(selected.id)) continue;
          for (const page of readSavedPlan(selected.plan).pages) linkOrCopy(output, out, page);
        }
      }
    };
    try {
      await attempt(renderer, renderer !== undefined ? 'rendering' : 'build');
    } catch (error) {
      // A renderer that fails is dropped, and Astro builds the pages: should
      // the fault be in the bundle rather than in the renderer, the build
      // fails the same way and that is the error. A write the file system
      // refused (a full disk) is no fault of the renderer's, and a build
      // would meet it again: it is the error at once, and the renderer kept.
      if (renderer === undefined || refusedWriteCode(error) !== undefined) throw error;
      fs.rmSync(path.dirname(renderer), { recursive: true, force: true });
      renderer = undefined;
      rendererFailure = (error as Error).message;
      await attempt(undefined, 'build');
    }
    writeSearchScripts(out, conversations.filter(({ render }) => render));
    await evidence;
    placeEvidence(staging, out);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  if (failedMeanwhile) throw failedMeanwhile.error;
  return { pages: finishPages(out, renderer !== undefined, placedMeanwhile ?? new Set()), byKeptRenderer: renderer !== undefined, ...(rendererFailure !== undefined ? { rendererFailure } : {}), ...(placedMeanwhile !== undefined ? { placedMeanwhile } : {}) };
}

/**
 * Starts one child of the site in `folder` (made here, with the site input
 * it renders, as `input.json`): with the kept renderer when there is one,
 * and in the child waiting with it when that was given; else an Astro build.
 */
function startSiteChild(folder: string, input: SiteInput, output: string, renderer: string | undefined, waiting?: WaitingRenderer): Child {
  fs.mkdirSync(folder);
  if (renderer !== undefined && waiting?.entry === renderer && (waiting.cache === undefined || waiting.cache === input.cache)) return waiting.begin(output, input);
  const file = path.join(folder, 'input.json');
  fs.writeFileSync(file, JSON.stringify(input));
  return renderer !== undefined ? startChild(RENDER, [renderer, file, output], folder, siteChildEnvironment()) : startChild(ASTRO_BUILD, [folder, path.relative(folder, CONFIG), file, output], folder, siteChildEnvironment());
}

/**
 * An Astro build of no conversation in `folder`, for its renderer alone,
 * kept for `code`. A build that fails keeps nothing, and the children build
 * with Astro as before, failing with their own error if it is the same.
 */
async function buildRenderer(folder: string, code: string, observer: StepObserver, roots: string): Promise<void> {
  try {
    // The selection names no conversation, so the bundle is never read.
    const child = startSiteChild(folder, { bundle: path.join(folder, 'no-bundle'), cache: path.join(folder, 'cache'), selection: { conversations: [] } }, path.join(folder, 'site'), undefined);
    await allSucceed([child], observer);
    await keepRenderer(path.join(folder, 'server'), code, roots);
  } catch {
    // Said by the children's builds, if it is theirs too.
  }
}

/**
 * Makes the renderer of the current code, unless one is kept already: what
 * `npm ci` does (scripts/prepare.ts), so that the first export renders its
 * pages with it rather than with an Astro build. Says whether one was kept
 * already, was made now, or could not be: a build that fails keeps none,
 * and the export builds with Astro as it would have.
 */
export async function prepareRenderer(roots = siteBuildRoots()): Promise<'kept' | 'made' | 'failed'> {
  const code = siteCode();
  if (keptRenderer(code, roots) !== undefined) return 'kept';
  fs.mkdirSync(roots, { recursive: true });
  removeAbandonedRoots(roots);
  const root = fs.mkdtempSync(path.join(roots, `astro-${process.pid}-`));
  try {
    await buildRenderer(path.join(root, 'renderer'), code, UNOBSERVED, roots);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return keptRenderer(code, roots) !== undefined ? 'made' : 'failed';
}

/**
 * The site's files that are no page: the highlight style sheet, the zstd
 * decoder of the evidence pages, and what a build copies from the public
 * folder, unless `builtByAstro` (which did).
 */
async function writeSiteFiles(out: string, builtByAstro: boolean): Promise<void> {
  if (!builtByAstro) fs.cpSync(PUBLIC, out, { recursive: true });
  fs.writeFileSync(path.join(out, 'highlight.css'), await highlightStyleSheet());
  fs.writeFileSync(path.join(out, ZSTD_DECODER), zstdDecoderScript());
}

/** What every rendering ends with: no build leftovers, and links relative, which the kept renderer made so already. */
function finishPages(out: string, byKeptRenderer: boolean, placed: ReadonlySet<string>): { file: string; bytes: number }[] {
  removeBuildLeftovers(out);
  return byKeptRenderer ? pagesUnder(out, undefined, placed) : relativeLinks(out);
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
 * The offline search index: for each conversation a classic script,
 * search/<conversation>.js, that adds its entries to
 * window.SESSIONIZER_SEARCH (fetch and module scripts fail from file://);
 * search.html loads them one at a time as a query needs them. Copied from the script each conversation's
 * build saved beside its plan (data/site-reader.ts): as one array built in the
 * Astro build, every conversation's entries and their JSON were in memory
 * at once.
 *
 * A script per conversation rather than one index, so that the next
 * export, after one conversation changed, writes only that conversation's
 * script, keeps the others with its pages (page-store.ts), and its archive
 * compresses only that one again and copies the frames of the others
 * (bundle/archive-frames.ts). One index for the whole site would be written
 * and compressed again by every export, whatever changed. Only the
 * conversations rendered are written.
 */
function writeSearchScripts(out: string, conversations: readonly SelectedConversation[]): void {
  fs.mkdirSync(path.join(out, SEARCH_SCRIPTS), { recursive: true });
  for (const { id, plan } of conversations) fs.copyFileSync(searchScriptBeside(plan), path.join(out, searchScriptOf(id)));
}

/**
 * Astro leaves module stubs of its content layer (`content-assets.mjs`,
 * `content-modules.mjs`) beside the pages, and would leave any chunk under
 * `_astro/` that no page links. Neither is part of the site, and every
 * file of an export is listed in its manifest.
 */
function removeBuildLeftovers(out: string): void {
  for (const name of fs.readdirSync(out)) if (name.endsWith('.mjs')) fs.rmSync(path.join(out, name));
  const assets = path.join(out, '_astro');
  if (!fs.existsSync(assets)) return;
  const used = new Set<string>();
  const visit = (folder: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith('.html')) for (const match of fs.readFileSync(full, 'utf8').matchAll(/_astro\/([^"'\s)]+)/g)) used.add(match[1]!);
    }
  };
  visit(out);
  for (const name of fs.readdirSync(assets)) if (!used.has(name)) fs.rmSync(path.join(assets, name));
  if (fs.readdirSync(assets).length === 0) fs.rmdirSync(assets);
}

/**
 * The conversations to render, shared out between `builds` Astro builds
 * that run at once, the largest first to the build with the fewest bytes so
 * far; the first group is the lead's. Unless told otherwise, one build per
 * core, up to MOST_BUILDS, but no more than one per BYTES_PER_BUILD of
 * bundle to render: each build pays its own start (Astro's import and
 * Vite's build of the page code), seconds of CPU and hundreds of megabytes
 * before it renders a page.
 */
function shareOut(bundle: string, ids: readonly string[], builds: number | undefined): Set<string>[] {
  const weighed = ids.map((id) => ({ id, bytes: bytesUnder(path.join(bundle, id)) + bytesUnder(path.join(bundle, '_conversations', id)) }));
  const total = weighed.reduce((sum, { bytes }) => sum + bytes, 0);
  const count = Math.max(1, Math.min(ids.length, builds ?? Math.min(os.availableParallelism(), MOST_BUILDS, Math.floor(total / BYTES_PER_BUILD))));
  const groups = Array.from({ length: count }, () => ({ ids: new Set<string>(), bytes: 0 }));
  for (const { id, bytes } of weighed.sort((a, b) => b.bytes - a.bytes)) {
    const lightest = groups.reduce((least, group) => (group.bytes < least.bytes ? group : least));
    lightest.ids.add(id);
    lightest.bytes += bytes;
  }
  return groups.map(({ ids: group }) => group);
}

/**
 * How much bundle a build must render to be worth its start: a second build
 * pays off for a site of hundreds of megabytes of bundle and not for one of
 * tens (bench/results/measurements-behind-choices.md); this puts the second build at 192 MB.
 */
const BYTES_PER_BUILD = 96 * 1024 * 1024;
/** Builds at once, at most: each holds its own Astro, Vite and the conversation it renders. */
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
  const outcomes = await Promise.allSettled(children.map((child) => child.done.catch((error: unknown) => {
    if (!failure) {
      failure = { error };
      for (const other of children) if (other !== child) other.stop();
    }
    throw error;
  })));
  if (failure) throw failure.error;
  observer.childMemory?.(outcomes.reduce((sum, outcome) => sum + (outcome as PromiseFulfilledResult<number>).value, 0));
}
