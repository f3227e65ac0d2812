// The site stage of an export: from `<export>/bundle` only, into `<export>/site`.
//
// 1. run Astro's build in child processes (astro-build.mjs, plain node rather
//    than the tsx loader) with a throwaway root under node_modules, so its
//    `.astro` folder and vite cache never land in the repository or the export;
//    with enough to render, one build per core shares the conversations out
//    (shareOut), since one Astro build renders on one thread;
//    Pages highlight their code as they render, through a cache on disk
//    (a second export of the same conversations highlights nothing);
//    Each build also leaves a renderer: the pages' code bundled with an
//    on-demand route (astro.config.mjs). Kept for the code that made it, it
//    renders the pages of later exports in children that start no Astro and
//    build nothing (render.mjs), which is most of a small build's time. A
//    site shared out with no renderer kept has one made first, by a build of
//    no conversation, rather than a build in every child, which is both
//    faster and lighter;
// 2. write the search index from the plans the build saved, the highlight
//    style sheet, and make every link relative, since Astro emits
//    `/_astro/...` and file:// has no server root.
//
// A conversation's pages are a function of its bundle files and of this
// code, and of nothing else: no page names another conversation. So finished
// pages are kept in the cache under a key of the two, and a build renders
// only the conversations whose key is new, linking the others' pages from
// the cache; the index and the search index, which list every conversation,
// are rendered each time from the plans saved beside the pages. The site is
// most of an export's time, so this is what lets a second export after one
// conversation changed cost a small part of the first.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedBlocks, CACHE_VARIABLE, removeEarlierBlocks } from '../data/highlighted.ts';
import { conversationsOfBundle } from '../data/bundle.ts';
import { BUNDLE_VARIABLE, SEARCH_SCRIPTS, searchScriptBeside, searchScriptOf, SELECTION_VARIABLE, type EarlierPages, type SavedPlan, type SelectedConversation, type SiteSelection } from '../data/site.ts';
import { pageDigestsBeside, readPageDigests } from '../data/earlier-pages.ts';
import { UNOBSERVED, type StepObserver } from '../../bundle/steps.ts';
import { removeWhatEndedProcessesLeft } from '../../files/process.ts';
import { listFolder } from '../../files/folders.ts';
import { exportFiles } from '../../bundle/manifest.ts';
import { sameUnlessChangeTime, stampOf } from '../../bundle/reuse.ts';
import { digestOfFile } from '../../files/digest.ts';
import { highlightStyleSheet } from './highlight-style.ts';
import { pagesUnder, relativeLinks } from './relative-links.ts';
import { siteChildEnvironment, startChild, type Child } from './child.ts';
import { linkOrCopy } from './link-or-copy.ts';
import { BUILD_ROOTS, filesUnder, keepRenderer, keptRenderer, RENDER, siteCode, type WaitingRenderer } from './kept-renderer.ts';
import { evidenceFilesBeside, keptEvidenceBeside, writeEvidence } from './evidence-pages.ts';

export interface SiteResult {
  readonly pages: number;
  /** Pages rendered by this build; the others were copied from the cache of finished pages. */
  readonly built: number;
  /** Of the pages not rendered, those of conversations rendered again that were the bytes of their earlier render, as their models did not change (data/earlier-pages.ts). */
  readonly keptFromEarlier: number;
  /** Code blocks highlighted by this build; the others came from the cache or stayed plain. */
  readonly highlighted: number;
  readonly largestPage: { readonly file: string; readonly bytes: number };
  /** True when the pages built were rendered by the renderer an earlier build kept, with no Astro build. */
  readonly byKeptRenderer: boolean;
  /** Why the kept renderer failed, when it did and a build rendered the pages instead. */
  readonly rendererFailure?: string;
  /**
   * The SHA-256 of site files, by path from the site root, where this build
   * knows it: every file, when finished pages are kept. The manifest takes
   * them rather than reading the pages again.
   */
  readonly digests: ReadonlyMap<string, string>;
  readonly milliseconds: number;
}

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
   * that they resolve astro and react from the project. By default
   * node_modules/.cache/sessionizer-site; a test that must not share its
   * kept renderer with the others gives a folder of its own under it.
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
    const entriesBefore = cachedBlocks(cache);
    const observer = options.observer ?? UNOBSERVED;
    // The waiting renderer's child was started for the code it read.
    const code = options.waitingRenderer?.code ?? siteCode();
    const finished = options.inputs ? finishedPages(cache, options.inputs, code) : undefined;
    let pages: { file: string; bytes: number }[];
    let built = 0;
    let keptFromEarlier = 0;
    let byKeptRenderer = false;
    let rendererFailure: string | undefined;
    const digests = new Map<string, string>();
    if (finished) {
      // The files that are no conversation's own (the index, search, scripts and
      // style sheets) depend on every conversation, so they are kept under one
      // key over all of them; when that entry and every conversation's are
      // finished, Astro is not started at all.
      const whole = entryOf(path.join(pagesFolder(cache), `site-${crypto.createHash('sha256').update(finished.map(({ folder }) => path.basename(folder)).join('\n')).digest('hex')}`));
      if (whole.render || finished.some(({ render }) => render)) {
        const rendering = await render(bundle, out, cache, code, finished, observer, options);
        keptFromEarlier = finished.reduce((sum, { render, folder }) => sum + (render ? keptPagesOf(folder) : 0), 0);
        built = rendering.pages.length - keptFromEarlier;
        ({ byKeptRenderer, rendererFailure } = rendering);
        const rendered = new Set(finished.flatMap(({ render, pages: of }) => (render ? of() : [])));
        keepEntry(out, whole.folder, exportFiles(out).files.filter((file) => !rendered.has(file)), digests);
      } else {
        placeEntry(whole.folder, whole.kept!, out, digests);
      }
      keepFinishedPages(cache, out, finished, whole.folder, digests);
      pages = exportFiles(out).files.filter((file) => file.endsWith('.html')).map((file) => ({ file, bytes: fs.statSync(path.join(out, file)).size }));
    } else {
      const rendering = await render(bundle, out, cache, code, undefined, observer, options);
      pages = rendering.pages;
      built = pages.length;
      ({ byKeptRenderer, rendererFailure } = rendering);
    }
    observer.advance(built, 0);
    let largestPage = { file: '', bytes: 0 };
    for (const page of pages) if (page.bytes > largestPage.bytes) largestPage = page;
    return { pages: pages.length, built, keptFromEarlier, highlighted: cachedBlocks(cache) - entriesBefore, largestPage, byKeptRenderer, ...(rendererFailure !== undefined ? { rendererFailure } : {}), digests, milliseconds: performance.now() - started };
  } finally {
    // Unused, when nothing was rendered or a build rendered instead.
    options.waitingRenderer?.dismiss();
  }
}

/**
 * Renders the site, every conversation or those `finished` says to render;
 * returns the pages written. With the renderer an earlier build of this
 * `code` kept, each child renders its pages with it and Astro is not started
 * (render.mjs); otherwise the children are Astro builds, and the lead's
 * renderer is kept for the next time.
 */
async function render(bundle: string, out: string, cache: string, code: string, finished: readonly Finished[] | undefined, observer: StepObserver, { builds, buildRoots: roots = BUILD_ROOTS, waitingRenderer }: SiteOptions): Promise<{ pages: { file: string; bytes: number }[]; byKeptRenderer: boolean; rendererFailure?: string }> {
  // Inside node_modules, so that the build resolves astro and react from the
  // project, yet outside what git tracks; removed after the build.
  fs.mkdirSync(roots, { recursive: true });
  removeAbandonedRoots(roots);
  const root = fs.mkdtempSync(path.join(roots, `astro-${process.pid}-`));
  const variables = siteVariables(bundle, cache);
  // Every conversation's plan is saved, in the cache or in the throwaway
  // root: the search index is written from them after the build.
  const earlier = finished ? earlierPagesOf(cache, finished, code) : new Map<string, EarlierPages>();
  const conversations: SelectedConversation[] = finished
    ? finished.map(({ id, render, folder }) => ({ id, render, plan: path.join(folder, PLAN), ...(render && earlier.has(id) ? { earlier: earlier.get(id)! } : {}) }))
    : conversationsOfBundle(bundle).map((id, index) => ({ id, render: true, plan: path.join(root, 'plans', `${index}.json`) }));
  const [, ...helpers] = shareOut(bundle, conversations.filter(({ render }) => render).map(({ id }) => id), builds);
  let renderer = keptRenderer(code, roots);
  let rendererFailure: string | undefined;
  try {
    // A site shared out between children: rather than each paying Astro's
    // start and Vite's build, one build of no conversation makes the
    // renderer first, and every child renders with it.
    if (helpers.length > 0 && renderer === undefined) {
      await buildRenderer(path.join(root, 'renderer'), code, observer, roots);
      renderer = keptRenderer(code, roots);
    }
    // Astro writes its server-side chunks inside the working folder (see
    // astro-build.mjs); from the throwaway root they import react and astro
    // from the project and leave no trace but the kept renderer.
    // Astro joins the config file to the root, so it is given relative to it.
    // The helpers render their conversations' pages into folders of their
    // own; the lead renders the rest, and the index and search pages, which
    // list every conversation, from the plans the helpers save.
    // One attempt: each child renders with the kept renderer when there is
    // one, else builds with Astro.
    const attempt = async (renderer: string | undefined, name: string): Promise<void> => {
      const start = (child: string, selection: SiteSelection, output: string, waiting?: WaitingRenderer): Child => startSiteChild(path.join(root, `${name}-${child}`), selection, output, variables, renderer, waiting);
      const helperBuilds = helpers.map((group, index) => {
        const output = path.join(root, `${name}-helper-${index + 1}-site`);
        return { group, output, child: start(`helper-${index + 1}`, { conversations: conversations.filter(({ id }) => group.has(id)), code }, output) };
      });
      const renderedBy = new Map(helperBuilds.flatMap(({ group, child }) => [...group].map((id) => [id, child.pid] as const)));
      const leadSelection: SiteSelection = { conversations: conversations.map((selected) => (renderedBy.has(selected.id) ? { ...selected, render: false, renderedBy: renderedBy.get(selected.id)! } : selected)), code };
      const children = [start('lead', leadSelection, path.resolve(out), waitingRenderer), ...helperBuilds.map(({ child }) => child)];
      await allSucceed(children, observer);
      if (renderer === undefined) await keepRenderer(path.join(root, `${name}-lead`, 'server'), code, roots);
      // What a build copies from the public folder, and the renderer does not.
      else fs.cpSync(PUBLIC, out, { recursive: true });
      for (const { group, output } of helperBuilds) {
        for (const selected of conversations) {
          if (!group.has(selected.id)) continue;
          for (const page of (JSON.parse(fs.readFileSync(selected.plan, 'utf8')) as SavedPlan).pages) linkOrCopy(output, out, page);
        }
      }
    };
    try {
      await attempt(renderer, renderer !== undefined ? 'rendering' : 'build');
    } catch (error) {
      // A renderer that fails is dropped, and Astro builds the pages: should
      // the fault be in the bundle rather than in the renderer, the build
      // fails the same way and that is the error.
      if (renderer === undefined) throw error;
      fs.rmSync(path.dirname(renderer), { recursive: true, force: true });
      renderer = undefined;
      rendererFailure = (error as Error).message;
      await attempt(undefined, 'build');
    }
    writeSearchScripts(out, conversations.filter(({ render }) => render));
    writeEvidence(bundle, out, conversations.filter(({ render }) => render), code);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return { pages: await finishPages(out, renderer !== undefined), byKeptRenderer: renderer !== undefined, ...(rendererFailure !== undefined ? { rendererFailure } : {}) };
}

/** What a site child renders from, and where it highlights into. */
function siteVariables(bundle: string, cache: string): NodeJS.ProcessEnv {
  return { [BUNDLE_VARIABLE]: path.resolve(bundle), [CACHE_VARIABLE]: path.resolve(cache) };
}

/**
 * Starts one child of the site in `folder` (made here, with the selection
 * it renders): with the kept renderer when there is one, and in the child
 * waiting with it when that was given; else an Astro build.
 */
function startSiteChild(folder: string, selection: SiteSelection, output: string, variables: NodeJS.ProcessEnv, renderer: string | undefined, waiting?: WaitingRenderer): Child {
  fs.mkdirSync(folder);
  const file = path.join(folder, 'selection.json');
  fs.writeFileSync(file, JSON.stringify(selection));
  const ofChild: NodeJS.ProcessEnv = { ...variables, [SELECTION_VARIABLE]: file };
  if (renderer !== undefined && waiting?.entry === renderer && (waiting.cache === undefined || waiting.cache === ofChild[CACHE_VARIABLE])) return waiting.begin(output, ofChild);
  const environment = siteChildEnvironment(ofChild);
  return renderer !== undefined ? startChild(RENDER, [renderer, output], folder, environment) : startChild(ASTRO_BUILD, [folder, path.relative(folder, CONFIG), output], folder, environment);
}

/**
 * An Astro build of no conversation in `folder`, for its renderer alone,
 * kept for `code`. A build that fails keeps nothing, and the children build
 * with Astro as before, failing with their own error if it is the same.
 */
async function buildRenderer(folder: string, code: string, observer: StepObserver, roots: string): Promise<void> {
  try {
    // The selection names no conversation, so the bundle is never read.
    const child = startSiteChild(folder, { conversations: [] }, path.join(folder, 'site'), siteVariables(path.join(folder, 'no-bundle'), path.join(folder, 'cache')), undefined);
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
export async function prepareRenderer(roots = BUILD_ROOTS): Promise<'kept' | 'made' | 'failed'> {
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
 * What every rendering ends with: no build leftovers, the highlight style
 * sheet, and links relative, which the kept renderer made so already.
 */
async function finishPages(out: string, byKeptRenderer: boolean): Promise<{ file: string; bytes: number }[]> {
  removeBuildLeftovers(out);
  fs.writeFileSync(path.join(out, 'highlight.css'), await highlightStyleSheet());
  return byKeptRenderer ? pagesUnder(out) : relativeLinks(out);
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
 * build saved beside its plan (data/site.ts): as one array built in the
 * Astro build, every conversation's entries and their JSON were in memory
 * at once.
 *
 * A script per conversation rather than one index, so that the next
 * export, after one conversation changed, writes only that conversation's
 * script, keeps the others with its pages (finishedPages), and its archive
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
 * `_astro/` that no page links (the React renderer is registered without its
 * client chunk, astro.config.mjs). Neither is part of the site, and every
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

// Finished pages: <cache>/pages/<key>/plan.json, files/<page>, and `complete`,
// written last, so that an entry an interrupted build left is never used.
// The pages in files/ and in the export are one file, hard links to each
// other: copying them would cost about as much as the rest of a second
// export's site step once only one conversation changed. `complete` names
// every file with its stamp (device, inode, size, modification time) and its
// SHA-256: a page edited in an export edits the cache too, and a page
// replaced in the cache is another inode, so either way the stamp no longer
// matches and the entry is rendered again rather than trusted.
const PLAN = 'plan.json';
const COMPLETE = 'complete';
const FILES = 'files';

function pagesFolder(cache: string): string {
  return path.join(cache, 'pages');
}

interface KeptFile {
  readonly file: string;
  readonly stamp: string;
  readonly sha256: string;
}

interface Entry {
  readonly folder: string;
  /** True when the cache has no finished entry for this key, or one whose files changed: it is rendered. */
  readonly render: boolean;
  /** The files of a finished entry. */
  readonly kept?: readonly KeptFile[];
}

interface Finished extends Entry {
  readonly id: string;
  /** The conversation's page files and its search script, from the site root, once its plan is saved. */
  readonly pages: () => string[];
}

/** An entry of the cache of finished pages, and whether it can be used as it is. */
function entryOf(folder: string): Entry {
  let text: string;
  try {
    text = fs.readFileSync(path.join(folder, COMPLETE), 'utf8');
  } catch {
    return { folder, render: true };
  }
  const kept = text.split('\n').filter((line) => line !== '').map((line): KeptFile => {
    const [stamp, sha256, ...file] = line.split(' ');
    return { stamp: stamp!, sha256: sha256!, file: file.join(' ') };
  });
  if (kept.every(({ file, stamp, sha256 }) => keptAsItWas(path.join(folder, FILES, file), stamp, sha256))) return { folder, render: false, kept };
  fs.rmSync(folder, { recursive: true, force: true });
  return { folder, render: true };
}

/**
 * Whether a kept file is as it was kept: its stamp unchanged, or changed in
 * its change time alone (every export links the file and removes the
 * earlier export's link, and an edit whose modification time was set back
 * looks the same) with its bytes still of its digest.
 */
function keptAsItWas(file: string, stamp: string, sha256: string): boolean {
  const now = stampOf(file);
  return now === stamp || (now !== undefined && sameUnlessChangeTime(now, stamp) && digestOfFile(file) === sha256);
}

function finishedPages(cache: string, inputs: ReadonlyMap<string, string>, code: string): Finished[] {
  return [...inputs].map(([id, input]) => {
    const key = crypto.createHash('sha256').update(`${code}\n${id}\n${input}`).digest('hex');
    const entry = entryOf(path.join(pagesFolder(cache), key));
    let pages: string[] | undefined;
    return { id, ...entry, pages: () => (pages ??= entry.kept ? entry.kept.map(({ file }) => file) : [...(JSON.parse(fs.readFileSync(path.join(entry.folder, PLAN), 'utf8')) as SavedPlan).pages, searchScriptOf(id), ...evidenceFilesBeside(path.join(entry.folder, PLAN))]) };
  });
}

/**
 * For each conversation to render, the entry its earlier render left in the
 * cache, when that render recorded its page digests for this code and the
 * entry's files are still those it kept (entryOf): the pages whose models
 * did not change are taken from it (data/earlier-pages.ts). An entry no
 * current key names is one that a conversation had before it changed, or
 * before the code did; they are few, as each build removes the entries it
 * does not use.
 */
function earlierPagesOf(cache: string, finished: readonly Finished[], code: string): Map<string, EarlierPages> {
  const rendering = new Set(finished.filter(({ render }) => render).map(({ id }) => id));
  const current = new Set(finished.map(({ folder }) => path.basename(folder)));
  const found = new Map<string, EarlierPages>();
  if (rendering.size === 0) return found;
  for (const name of listFolder(pagesFolder(cache))) {
    if (current.has(name)) continue;
    const folder = path.join(pagesFolder(cache), name);
    const digests = pageDigestsBeside(path.join(folder, PLAN));
    if (readPageDigests(digests)?.code !== code) continue;
    let id: string;
    try {
      id = (JSON.parse(fs.readFileSync(path.join(folder, PLAN), 'utf8')) as SavedPlan).summary.id;
    } catch {
      continue;
    }
    if (!rendering.has(id) || found.has(id) || entryOf(folder).render) continue;
    found.set(id, { files: path.join(folder, FILES), digests });
  }
  return found;
}

/** How many pages of the entry just rendered in `folder` were kept from the conversation's earlier render. */
function keptPagesOf(folder: string): number {
  return Object.values(readPageDigests(pageDigestsBeside(path.join(folder, PLAN)))?.pages ?? {}).filter(({ kept }) => kept).length + keptEvidenceBeside(path.join(folder, PLAN));
}

/** Keeps the files named, just written under `out`, as the finished entry `folder`; their digests go into `digests`. */
function keepEntry(out: string, folder: string, files: readonly string[], digests: Map<string, string>): void {
  // What an interrupted build left of the entry goes first: a link cannot replace a file.
  fs.rmSync(path.join(folder, FILES), { recursive: true, force: true });
  const lines: string[] = [];
  for (const file of files) {
    linkOrCopy(out, path.join(folder, FILES), file);
    const sha256 = digestOfFile(path.join(out, file));
    digests.set(file, sha256);
    lines.push(`${stampOf(path.join(folder, FILES, file))} ${sha256} ${file}\n`);
  }
  fs.writeFileSync(path.join(folder, COMPLETE), lines.join(''));
}

/** Puts the files of the finished entry `folder` into `out`, with their digests into `digests`. */
function placeEntry(folder: string, kept: readonly KeptFile[], out: string, digests: Map<string, string>): void {
  for (const { file, sha256 } of kept) {
    linkOrCopy(path.join(folder, FILES), out, file);
    digests.set(file, sha256);
  }
}

/**
 * Keeps the pages just rendered for the next build, and places the pages of
 * every conversation that was not rendered. Entries no conversation of this
 * build uses are removed, so the cache holds about one site.
 */
function keepFinishedPages(cache: string, out: string, finished: readonly Finished[], whole: string, digests: Map<string, string>): void {
  for (const { folder, render, pages, kept } of finished) {
    if (render) keepEntry(out, folder, pages(), digests);
    else placeEntry(folder, kept!, out, digests);
  }
  const used = new Set([...finished.map(({ folder }) => path.basename(folder)), path.basename(whole)]);
  for (const name of listFolder(pagesFolder(cache))) if (!used.has(name)) fs.rmSync(path.join(pagesFolder(cache), name), { recursive: true, force: true });
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
 * tens (docs/performance.md); this puts the second build at 192 MB.
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
