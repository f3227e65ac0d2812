// The whole site's plan, and one page's model, for the Astro pages.
//
// The bundle and the highlight cache are named by the export stage in the
// environment (build.ts): Astro bundles the pages into chunks of their own,
// so a module-level setting made before the build would not be the one the
// pages see. `getStaticPaths` gets file names only, and each page loads its
// conversation lazily: whole conversations in props doubled peak memory
// (research §4.2). Pages are rendered in plan order, so the last
// conversation loaded is kept for the next page, and the kept renderer plans
// each conversation only as its pages come up (pagesAsPlanned).

import fs from 'node:fs';
import path from 'node:path';
import type { BundleConversation } from './bundle.ts';
import { conversationsOfBundle, loadConversation } from './bundle.ts';
import { planConversation, slug, type ConversationPlan, type ConversationSummary, type PagePlan } from './plan.ts';
import { anchorOf, conversationStructure, withParts, type ConversationStructure } from './streams.ts';
import type { ConversationRows } from './rows.ts';
import { writeSearchScript } from './search-text.ts';
import { duration, promptOfTalk, streamTitle } from './facts.ts';
import type { EpochView, LinkView, StepView, TalkView, UnresolvedView } from './views.ts';
import type { BranchRecord } from '../../branches/explicit.ts';
import { UNRESOLVED_KINDS, type UnresolvedKind } from '../../model/structure.ts';
import { hasEnded } from '../../files/process.ts';

export const BUNDLE_VARIABLE = 'SESSIONIZER_SITE_BUNDLE';

export function bundleOfBuild(): string {
  const bundle = process.env[BUNDLE_VARIABLE];
  if (!bundle) throw new Error(`the site is built from a bundle: set ${BUNDLE_VARIABLE} to its folder (the export stage does)`);
  return bundle;
}

export interface SitePlan {
  readonly conversations: ConversationSummary[];
  readonly plans: Map<string, ConversationPlan>;
  readonly pages: PagePlan[];
}


/** The most of a prompt that labels the path it starts at a fork. */
const PROMPT_LABEL = 80;

/**
 * Which conversations a build renders, named by the export stage in the
 * environment (generator/site.ts): the others' pages come from the cache of
 * finished pages, and only their summary and search entries are read here, from
 * the plan this module saved when it last rendered them. Without it, every
 * conversation is rendered.
 */
export const SELECTION_VARIABLE = 'SESSIONIZER_SITE_SELECTION';

export interface SiteSelection {
  readonly conversations: readonly SelectedConversation[];
  /** The site's code (generator/kept-renderer.ts, siteCode), which every page's digest takes in (earlier-pages.ts). */
  readonly code?: string;
}

export interface SelectedConversation {
  readonly id: string;
  readonly render: boolean;
  /** Where the plan of this conversation is saved or read. */
  readonly plan: string;
  /**
   * The process id of the other build that renders this conversation, when
   * one does (generator/site.ts shares the rendering out between builds): its
   * plan is waited for rather than read at once.
   */
  readonly renderedBy?: number;
  /** The pages of this conversation's earlier render, to keep those that did not change (earlier-pages.ts). */
  readonly earlier?: EarlierPages;
}

/** A conversation's pages as an earlier render wrote them: the folder of its page files, and its page digests (earlier-pages.ts). */
export interface EarlierPages {
  readonly files: string;
  readonly digests: string;
}

/** What is kept of a rendered conversation for builds that do not render it again. */
export interface SavedPlan {
  readonly summary: ConversationSummary;
  /** Every page file of the conversation, from the site root. */
  readonly pages: string[];
}

/**
 * Where the search script of the conversation whose plan is saved at `plan`
 * is kept, beside it, as the site has it (searchScriptOf).
 * Apart from the plan, because the build reads every plan that it does not
 * render and the export then copies every conversation's script: inside the
 * plans, on the 1 GB benchmark corpus, the two parsed 60 MB of entries as
 * JSON, and writing the index took 2.4 s of a second export that rendered
 * one conversation.
 */
export function searchScriptBeside(plan: string): string {
  return plan.replace(/\.json$/, '.search.js');
}

/**
 * The search script of a conversation, from the site root: one classic
 * script per conversation (search-text.ts), which search.html loads as a
 * query needs it (generator/site.ts copies them into the site).
 */
export function searchScriptOf(id: string): string {
  return `${SEARCH_SCRIPTS}/${slug(id)}.js`;
}

/** The folder of the search scripts, from the site root. */
export const SEARCH_SCRIPTS = 'search';

/**
 * The site's plan as it is made. The conversations this build renders are
 * planned one at a time, in the selection's order, when a page of theirs is
 * first asked for, and the conversation loaded to plan is kept for its
 * pages: the kept renderer asks for each conversation's pages as soon as it
 * is planned (pagesAsPlanned), so that every conversation is read once.
 * Planning them all first read each twice, which on the 200 MB corpus was
 * 2.4 s of loading and 1.0 s of structure in the 18.8 s that rendering its
 * 473 pages took in one process.
 */
interface Planning {
  readonly bundle: string;
  readonly selection: SiteSelection;
  /** The next of the selection's conversations to plan. */
  next: number;
  readonly plans: Map<string, ConversationPlan>;
  readonly pages: PagePlan[];
  readonly pageByFile: Map<string, PagePlan>;
  /** The selection's entries by conversation, once a page has asked for one (pageSelection). */
  selectedById?: Map<string, SelectedConversation>;
  complete?: SitePlan;
}

const plannings = new Map<string, Planning>();

/**
 * The conversation whose pages are being rendered, with its structure. The
 * structure holds no step's parts: each page reads those of its own steps
 * from the conversation's rows (streams.ts, withParts), which are held only
 * for a small conversation (rows.ts).
 */
let loaded: { bundle: string; id: string; conversation: BundleConversation; structure: ConversationStructure } | undefined;

/** Makes `next` the conversation loaded, closing what the one before it had open. */
function load(next: typeof loaded): void {
  loaded?.conversation.rows.close();
  loaded = next;
}

function planningOf(bundle: string): Planning {
  const known = plannings.get(bundle);
  if (known) return known;
  const selectionFile = process.env[SELECTION_VARIABLE];
  const selection: SiteSelection = selectionFile ? (JSON.parse(fs.readFileSync(selectionFile, 'utf8')) as SiteSelection) : { conversations: conversationsOfBundle(bundle).map((id) => ({ id, render: true, plan: '' })) };
  const planning: Planning = { bundle, selection, next: 0, plans: new Map(), pages: [], pageByFile: new Map() };
  plannings.set(bundle, planning);
  return planning;
}

/** Plans the next conversation this build renders and keeps it loaded for its pages; undefined once every one is planned. */
function planNext(planning: Planning): ConversationPlan | undefined {
  const { bundle, selection } = planning;
  while (planning.next < selection.conversations.length) {
    const { id, render, plan: saved } = selection.conversations[planning.next++]!;
    if (!render) continue;
    const conversation = loadConversation(bundle, id);
    let planned: ConversationPlan | undefined;
    const structure = linkedStructure(conversation, () => planned);
    const plan = planConversation(conversation, structure);
    planned = plan;
    load({ bundle, id, conversation, structure });
    planning.plans.set(id, plan);
    for (const page of plan.pages) {
      planning.pages.push(page);
      planning.pageByFile.set(page.file, page);
    }
    // The conversation's search script is written beside its plan, as the
    // conversation is planned, and copied into the site once the build is
    // done (generator/site.ts): no build holds more than one step's text of it.
    if (saved) {
      const kept: SavedPlan = { summary: plan.summary, pages: plan.pages.map((page) => page.file) };
      fs.mkdirSync(path.dirname(saved), { recursive: true });
      writeSearchScript(searchScriptBeside(saved), conversation, structure, plan.pageOfTalk, plan.summary.facts);
      // Under a temporary name first: another build may be waiting for it.
      fs.writeFileSync(`${saved}.${process.pid}.tmp`, `${JSON.stringify(kept)}\n`);
      fs.renameSync(`${saved}.${process.pid}.tmp`, saved);
    }
    return plan;
  }
  return undefined;
}

/**
 * The conversation's structure, its links resolved to the pages of `plan`
 * once there is one: the plan is made from the structure, so a link asked
 * for before it is on no page.
 */
function linkedStructure(conversation: BundleConversation, plan: () => ConversationPlan | undefined): ConversationStructure {
  return conversationStructure(conversation, (nodeId, talk) => {
    const known = plan();
    if (known === undefined) return undefined;
    if (nodeId.startsWith('stream/')) return known.pageOfStream.get(nodeId);
    const at = talk ? known.pageOfTalk.get(talk) : undefined;
    return at ? `${at}#${anchorOf(nodeId)}` : undefined;
  });
}

/** A conversation already planned, loaded again for its pages. */
function loadForPages(bundle: string, id: string, plan: ConversationPlan): { conversation: BundleConversation; structure: ConversationStructure } {
  const conversation = loadConversation(bundle, id);
  return { conversation, structure: linkedStructure(conversation, () => plan) };
}

/** The whole plan: every conversation this build renders planned, and the summary of every other one read from its saved plan. */
export function sitePlan(bundle = bundleOfBuild()): SitePlan {
  const planning = planningOf(bundle);
  if (planning.complete) return planning.complete;
  while (planNext(planning) !== undefined);
  // Those another build renders are waited for only now, after this build's
  // own: that build saves each plan as it plans it.
  const conversations = planning.selection.conversations.map((selected) => planning.plans.get(selected.id)?.summary ?? savedPlan(selected).summary);
  planning.complete = { conversations, plans: planning.plans, pages: planning.pages };
  return planning.complete;
}

/** The files of the pages this build renders, one conversation after another, each planned only when its first page is due. */
export function* pagesAsPlanned(bundle = bundleOfBuild()): Generator<string> {
  const planning = planningOf(bundle);
  let given = 0;
  do {
    while (given < planning.pages.length) yield planning.pages[given++]!.file;
  } while (planNext(planning) !== undefined);
}

/** The plan of the page `file`, planning conversations until it comes up. */
function plannedPage(planning: Planning, file: string): PagePlan {
  for (;;) {
    const page = planning.pageByFile.get(file);
    if (page) return page;
    if (planNext(planning) === undefined) throw new Error(`the site has no page ${file}`);
  }
}

/** The selection's entry of the conversation the page `file` belongs to, and the site's code, when the selection names it. */
export function pageSelection(file: string, bundle = bundleOfBuild()): { selected: SelectedConversation; code: string | undefined } {
  const planning = planningOf(bundle);
  const { conversation } = plannedPage(planning, file);
  planning.selectedById ??= new Map(planning.selection.conversations.map((selected) => [selected.id, selected]));
  return { selected: planning.selectedById.get(conversation)!, code: planning.selection.code };
}

/** How often a build looks for a plan that another build is still making. */
const PLAN_POLL_MS = 20;

/**
 * The saved plan of a conversation this build does not render: kept from an
 * earlier build, or saved by the build that renders it now, which is waited
 * for as long as it runs.
 */
function savedPlan({ id, plan, renderedBy }: SelectedConversation): SavedPlan {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return JSON.parse(fs.readFileSync(plan, 'utf8')) as SavedPlan;
    } catch (error) {
      if (renderedBy === undefined || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (hasEnded(renderedBy)) throw new Error(`${plan}: the build that renders conversation ${id} (process ${renderedBy}) ended without saving its plan`);
      Atomics.wait(pause, 0, 0, PLAN_POLL_MS);
    }
  }
}

export interface BranchHeader {
  readonly name: string;
  readonly origin: 'natural' | 'explicit';
  readonly forkPoint: LinkView;
  readonly boundaryKind: string;
  readonly summary: string;
  readonly labels: string[];
  readonly record?: BranchRecord;
}

export interface TimelineEntry {
  readonly label: string;
  readonly href: string;
  readonly time?: string;
  /** A quiet gap before this talk, in words, when it is long enough to matter. */
  readonly quiet?: string;
}

/**
 * What a page shows, and nothing else: a page's bytes are a function of its
 * model and the site's code (earlier-pages.ts digests the model to keep a
 * page whose model did not change).
 */
export interface PageModel {
  readonly plan: PagePlan;
  /** The conversation as the page's crumbs name it. */
  readonly conversation: { readonly id: string; readonly title?: string; readonly first: string };
  readonly heading: string;
  /** A child stream's links to where it was started; none on other pages. */
  readonly streamLinks: LinkView[];
  readonly talks: TalkView[];
  /** The epoch a talk opens, when it is the first talk of its epoch on the page. */
  readonly epochBefore: Map<string, EpochView>;
  /** On a branch's first page, the last talks before its fork point, shown folded above it: the history it shares. */
  readonly sharedBefore?: TalkView[];
  /** Links to the other paths that leave from inside a talk, placed after it. */
  readonly forksAfter: Map<string, LinkView[]>;
  /** Paths that leave before the first talk: rewinds to the first prompt. */
  readonly forksAtStart: LinkView[];
  readonly branch?: BranchHeader;
  /**
   * What the whole conversation holds (its facts, branches, streams and
   * joins), on its first page only, the page its crumbs link to: these
   * change whenever the conversation grows, and on any other page they
   * would make a page whose talks did not change new bytes all the same.
   */
  readonly overview?: PageOverview;
  /** Every talk of the page's subject, on the first page of each subject. */
  readonly timeline: TimelineEntry[];
}

export interface PageOverview {
  readonly summary: ConversationSummary;
  /** Where the conversation was held, readable, when the session records it. */
  readonly project?: string;
  /** The models that answered, when the session records them. */
  readonly models: string[];
  /** The git branches the session worked on, in the order first named (facts.ts). */
  readonly gitBranches: string[];
  readonly branches: LinkView[];
  readonly streams: LinkView[];
  readonly counts: { readonly name: string; readonly value: string }[];
  readonly unresolved: UnresolvedView[];
}

/** The steps a page shows under its epochs and talks, each with its children: those of the epochs it opens, then its talks'. */
export function stepsOfPage(model: Pick<PageModel, 'epochBefore' | 'talks' | 'sharedBefore'>): StepView[] {
  return [...[...model.epochBefore.values()].flatMap((epoch) => epoch.steps), ...[...(model.sharedBefore ?? []), ...model.talks].flatMap((talk) => [...talk.loose, ...talk.runs.flatMap((run) => run.steps)])];
}

/** The model of the page `file`: its outline, with its steps' parts read from their rows. */
export function pageModel(file: string, bundle = bundleOfBuild()): PageModel {
  const { model, rows } = pageOutline(file, bundle);
  const steps = (list: readonly StepView[]): StepView[] => list.map((step) => withParts(step, rows));
  const withTheirParts = (talk: TalkView): TalkView => ({ ...talk, loose: steps(talk.loose), runs: talk.runs.map((run) => ({ ...run, steps: steps(run.steps) })) });
  return {
    ...model,
    talks: model.talks.map(withTheirParts),
    ...(model.sharedBefore ? { sharedBefore: model.sharedBefore.map(withTheirParts) } : {}),
    epochBefore: new Map([...model.epochBefore].map(([talk, epoch]) => [talk, { ...epoch, steps: steps(epoch.steps) }])),
  };
}

/**
 * The model of the page `file` without its steps' parts, and the rows they
 * are read from: what the page's digest is made from (earlier-pages.ts), so
 * that a page kept from an earlier render parses none of its rows.
 */
export function pageOutline(file: string, bundle = bundleOfBuild()): { model: PageModel; rows: ConversationRows } {
  const model = outlineOf(file, bundle);
  return { model, rows: loaded!.conversation.rows };
}

function outlineOf(file: string, bundle: string): PageModel {
  const planning = planningOf(bundle);
  const page = plannedPage(planning, file);
  const plan = planning.plans.get(page.conversation)!;
  if (loaded?.bundle !== bundle || loaded.id !== page.conversation) {
    load(undefined);
    load({ bundle, id: page.conversation, ...loadForPages(bundle, page.conversation, plan) });
  }
  const { conversation, structure } = loaded!;
  const stream = structure.streams.find((candidate) => candidate.id === page.stream) ?? { id: '', name: 'main', child: false, epochs: [], talks: [], links: [] };
  const wanted = new Set(page.talks);
  const talks = stream.talks.filter((talk) => wanted.has(talk.id));
  const epochBefore = new Map<string, EpochView>();
  let previous: string | undefined;
  for (const talk of talks) {
    if (talk.epoch !== previous) {
      const epoch = stream.epochs.find((candidate) => candidate.id === talk.epoch);
      if (epoch) epochBefore.set(talk.id, epoch);
    }
    previous = talk.epoch;
  }

  // Branch switchers: after the talk that holds each fork point, a link to every path leaving it.
  const forksAfter = new Map<string, LinkView[]>();
  const forksAtStart: LinkView[] = [];
  const talkHolding = (key: string | undefined): TalkView | undefined => (key === undefined ? undefined : stream.talks.find((talk) => talk.keys.includes(key)));
  const linkTo = (name: string, text: string): LinkView => ({ label: text, href: plan.pageOfBranch.get(name) });
  // A path is told by the prompt it starts with: that of the talk its first record is in, read once per path.
  const prompts = new Map<string, string | undefined>();
  const firstPromptOf = (first: { seq: number; row: number }): string | undefined => {
    const key = `${first.seq}:${first.row}`;
    if (!prompts.has(key)) {
      const talk = talkHolding(key);
      const prompt = talk ? promptOfTalk(talk, conversation, PROMPT_LABEL) : undefined;
      prompts.set(key, prompt ? `“${prompt}”` : undefined);
    }
    return prompts.get(key);
  };
  const activeName = conversation.branches.branches.find((branch) => branch.active)?.name;
  if (!stream.child) {
    const here = (path: { active: boolean; name: string }): boolean => (page.kind === 'conversation' ? path.active : path.name === page.subject);
    for (const branch of conversation.branches.branches) {
      // Only the path this page shows gets a switcher: the others' prompts are not read for it.
      if (!here(branch)) continue;
      const siblings = conversation.branches.branches.filter((other) => other.forkPoint === branch.forkPoint && other !== branch);
      if (siblings.length === 0) continue;
      const links = [branch, ...siblings].map((path) => ({ ...linkTo(path.name, `${firstPromptOf(path.first) ?? (path.active ? 'the active path' : path.name)} · ${path.turns} ${path.turns === 1 ? 'prompt' : 'prompts'}${path.active ? ', the latest path' : ''}`), ...(here(path) ? { current: true } : {}) }));
      const holder = talkHolding(branch.forkPoint ? `${branch.forkPoint.seq}:${branch.forkPoint.row}` : undefined);
      if (holder && wanted.has(holder.id)) forksAfter.set(holder.id, [...(forksAfter.get(holder.id) ?? []), ...links]);
      else forksAtStart.push(...links);
    }
    for (const explicit of conversation.explicit) {
      const boundary = explicit.record.boundary.ref;
      const holder = talkHolding(boundary ? `${boundary.seq}:${boundary.row}` : undefined);
      if (page.kind === 'conversation' && holder && wanted.has(holder.id)) forksAfter.set(holder.id, [...(forksAfter.get(holder.id) ?? []), linkTo(explicit.record.name, `explicit branch ${explicit.record.name}, forked here by ${explicit.record.provenance.actor}`)]);
    }
  }

  let branch: BranchHeader | undefined;
  let sharedBefore: TalkView[] = [];
  if (page.kind === 'branch') {
    const natural = conversation.branches.branches.find((candidate) => candidate.name === page.subject);
    const explicit = conversation.explicit.find((candidate) => candidate.record.name === page.subject);
    const label = conversation.labels.get(page.subject);
    if (natural) {
      const holder = talkHolding(natural.forkPoint ? `${natural.forkPoint.seq}:${natural.forkPoint.row}` : undefined);
      if (holder && page.number === 1) sharedBefore = sharedHistory(stream.talks, holder, plan);
      branch = {
        name: natural.name,
        origin: 'natural',
        forkPoint: { label: natural.forkPoint ? `record ${natural.forkPoint.id ?? '?'} at {seq ${natural.forkPoint.seq}, row ${natural.forkPoint.row}}` : 'before the first prompt (a rewind to the start)', href: holder ? plan.pageOfTalk.get(holder.id)?.concat(`#${holder.anchor}`) : undefined },
        boundaryKind: natural.forkPoint ? 'a person’s prompt after a rewind or an edit' : 'a rewind to the first prompt',
        summary: natural.summary,
        labels: label?.labels ?? [],
      };
    } else if (explicit) {
      const boundary = explicit.record.boundary;
      const holder = talkHolding(boundary.ref ? `${boundary.ref.seq}:${boundary.ref.row}` : undefined);
      branch = {
        name: explicit.record.name,
        origin: 'explicit',
        forkPoint: { label: `event ${boundary.event}${boundary.ref ? ` at {seq ${boundary.ref.seq}, row ${boundary.ref.row}}` : ''} on ${explicit.record.parent_branch}`, href: holder ? plan.pageOfTalk.get(holder.id)?.concat(`#${holder.anchor}`) : undefined },
        boundaryKind: boundary.kind,
        summary: label?.summary ?? ('summary' in explicit.record && typeof explicit.record.summary === 'string' ? explicit.record.summary : 'unsummarized'),
        labels: label?.labels ?? [],
        record: explicit.record,
      };
    }
  }

  const naturalFirst = page.kind === 'branch' ? conversation.branches.branches.find((candidate) => candidate.name === page.subject)?.first : undefined;
  const branchPrompt = naturalFirst ? firstPromptOf(naturalFirst) : undefined;
  const title = conversationTitle(plan.summary);
  const heading = page.kind === 'conversation' ? (title ?? `Conversation ${page.conversation.slice(0, 8)}`) : page.kind === 'branch' ? (branchPrompt ? `Another path: ${branchPrompt}` : `Branch ${page.subject}`) : (streamTitle(stream, structure, conversation) ?? `Subagent ${shortIds(page.subject)}`);
  const { id, first } = plan.summary;
  return {
    plan: page,
    conversation: { id, ...(title !== undefined ? { title } : {}), first },
    heading,
    streamLinks: page.kind === 'stream' ? stream.links : [],
    talks,
    ...(sharedBefore.length > 0 ? { sharedBefore } : {}),
    epochBefore,
    forksAfter,
    forksAtStart,
    ...(branch ? { branch } : {}),
    ...(page.file === plan.summary.first ? { overview: overviewOf(plan, structure, conversation, activeName) } : {}),
    timeline: page.number === 1 ? timeline(stream.talks, plan) : [],
  };
}

/** The conversation's title as the index shows it (facts.ts), unless that is only its id. */
function conversationTitle(summary: ConversationSummary): string | undefined {
  return summary.facts.titleSource === 'id' ? summary.title : summary.facts.title;
}

/** A name with every UUID in it cut to its first eight digits, as a reader tells them apart. */
function shortIds(name: string): string {
  return name.replace(/\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '$1');
}

/**
 * The most talks, and the most of their estimated HTML, of shared history a
 * branch page shows above its own: the page was planned without them, and
 * the whole history is on the conversation's pages.
 */
const SHARED_TALKS = 3;
const SHARED_WEIGHT = 96 * 1024;

/**
 * The last talks before a fork, up to the one that holds the fork point, of
 * the path the conversation's pages show (a talk on several paths is placed
 * on those first, plan.ts).
 */
function sharedHistory(talks: readonly TalkView[], holder: TalkView, plan: ConversationPlan): TalkView[] {
  const before = talks.slice(0, talks.indexOf(holder) + 1).filter((talk) => plan.pageOfTalk.get(talk.id)?.startsWith('c/'));
  const shown: TalkView[] = [];
  let weight = 0;
  for (const talk of before.slice(-SHARED_TALKS).reverse()) {
    if ((weight += talk.weight) > SHARED_WEIGHT) break;
    shown.unshift(talk);
  }
  return shown;
}

function overviewOf(plan: ConversationPlan, structure: ConversationStructure, conversation: BundleConversation, activeName: string | undefined): PageOverview {
  const session = [...structure.nodes.values()].find((node) => node.kind === 'session');
  // The project and models the index shows for this conversation (facts.ts), so the two never disagree.
  const { project, models, gitBranches } = plan.summary.facts;
  return {
    summary: plan.summary,
    ...(project ? { project: project.path } : {}),
    models,
    gitBranches,
    branches: [...plan.pageOfBranch.entries()].map(([name, href]) => ({ label: name === activeName ? `${name} (active)` : name, href })),
    streams: structure.streams.map((candidate) => ({ label: `${candidate.child ? 'child' : 'main'} stream ${candidate.name}${candidate.label ? `: ${candidate.label}` : ''} (${candidate.talks.length} talks)`, href: plan.pageOfStream.get(candidate.id) })),
    counts: countsOf((session?.attrs?.counts ?? {}) as Record<string, number>),
    unresolved: [...conversation.folded.unresolved.values()].flatMap((entry) => (entry.t === 'unresolved' && entry.state !== 'resolved' ? [{ kind: entry.kind, state: entry.state, about: entry.ref, meaning: UNRESOLVED_KINDS[entry.kind as UnresolvedKind] ?? entry.kind }] : [])),
  };
}

/** A gap between talks this long or longer is labelled on the timeline. */
const QUIET_MS = 30 * 60 * 1000;

function timeline(talks: readonly TalkView[], plan: ConversationPlan): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  let last: string | undefined;
  for (const talk of talks) {
    const href = plan.pageOfTalk.get(talk.id);
    if (href === undefined) continue;
    const gap = last !== undefined && talk.from !== undefined ? Date.parse(talk.from) - Date.parse(last) : 0;
    entries.push({ label: `talk ${talk.number}`, href: `${href}#${talk.anchor}`, ...(talk.from !== undefined ? { time: talk.from } : {}), ...(gap >= QUIET_MS ? { quiet: `quiet for ${duration(gap)}` } : {}) });
    last = talk.to ?? talk.from ?? last;
  }
  return entries;
}

/** Counts with their denominators, so that a reader sees "2 of 3 tool uses joined". */
function countsOf(counts: Record<string, number>): { name: string; value: string }[] {
  const pairs: [string, string, string][] = [
    ['tool uses joined to a result', 'tool_uses_joined', 'tool_uses'],
    ['child streams started by a known call', 'child_streams_started', 'child_streams'],
    ['notifications joined', 'notifications_joined', 'notifications'],
    ['provider calls with no stop reason', 'provider_calls_without_stop', 'provider_calls'],
    ['provider calls with no provider id', 'provider_calls_without_id', 'provider_calls'],
    ['duplicate records removed', 'duplicates', 'records'],
    ['structural records', 'structural_records', 'records'],
    ['synthetic messages', 'synthetic_messages', 'records'],
    ['orphan results', 'orphan_results', 'records'],
  ];
  return pairs.filter(([, part, whole]) => counts[part] !== undefined && counts[whole] !== undefined).map(([name, part, whole]) => ({ name, value: `${counts[part]!.toLocaleString('en')} of ${counts[whole]!.toLocaleString('en')}` }));
}
