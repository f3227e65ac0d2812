// A page's model, made by plain functions of its conversation and its plan:
// what the page shows and nothing else. The site reader (site-reader.ts)
// loads each conversation and plans it once per process, and hands these
// functions what a page needs; the views only render the model they are
// given.
//
//   pageOutline: the page's talks, links, header and audit, its steps
//     without their parts (what a page's digest is made from,
//     view-digests.ts, and what the view renders around its talks);
//   talkWithParts, epochWithParts: a talk, and the compaction that opens
//     an epoch, with each step's parts read from the conversation's rows,
//     from which their HTML is made once (site-reader.ts).

import type { BundleConversation } from './bundle.ts';
import type { ConversationPlan, ConversationSummary, PagePlan } from './plan.ts';
import { anchorOf, conversationStructure, stepsOfTalk, withParts, type ConversationStructure } from './streams.ts';
import type { ConversationRows } from './rows.ts';
import { cut, duration, projectGroups, promptOfTalk, streamTitle, type ProjectGroup } from './facts.ts';
import { OPENING_TAG } from './parts.ts';
import { partsOfStep } from './row-outline.ts';
import { singleSpaced } from './search-text.ts';
import { searchScriptOf } from './page-files.ts';
import { counted, runtimeLine } from './shown-text.ts';
import { branchFacts, branchLabels } from './branch-labels.ts';
import type { EpochView, LinkView, StepView, TalkView, UnresolvedView } from './views.ts';
import { slashCommandOf } from '../../adapters/built-in.ts';
import { promptTitleText } from '../../assembly/title-text.ts';
import type { BranchRecord } from '../../branches/explicit.ts';
import { UNRESOLVED_KINDS, type UnresolvedKind } from '../../model/structure.ts';

/** The most of a prompt that heads the branch page it starts. */
const PROMPT_LABEL = 80;

/** A conversation as a page is modelled from: its bundle files, its structure and its plan. */
export interface PlannedConversation {
  readonly conversation: BundleConversation;
  readonly structure: ConversationStructure;
  readonly plan: ConversationPlan;
}

/**
 * The conversation's structure, its links resolved to the pages of `plan`
 * once there is one: the plan is made from the structure, so a link asked
 * for before it is on no page.
 */
export function linkedStructure(conversation: BundleConversation, plan: () => ConversationPlan | undefined): ConversationStructure {
  return conversationStructure(conversation, (nodeId, talk) => {
    const known = plan();
    if (known === undefined) return undefined;
    if (nodeId.startsWith('stream/')) return known.pageOfStream.get(nodeId);
    const at = talk ? known.pageOfTalk.get(talk) : undefined;
    return at ? `${at}#${anchorOf(nodeId)}` : undefined;
  });
}

/**
 * A page's talks, rendered once for the conversation (site-reader.ts): what
 * the view puts between the page's header and its audit. Each is a
 * placeholder in the view's HTML, which the generator replaces with the
 * talks' bytes as they were held once the view has framed them
 * (talk-pages.ts). Apart from the model, which a page's digest is made from
 * (view-digests.ts).
 */
export interface PageBody {
  readonly talks: string;
  /** On a branch's first page, the shared history folded above its own talks (PageModel.sharedBefore). */
  readonly sharedBefore?: string;
  /** How many thoughts of the page's talks had their text withheld by the source (views/talks.ts, withheldThoughts). */
  readonly withheld: number;
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
 * model and the site's code (view-digests.ts digests the model to keep a
 * page whose model did not change).
 */
export interface PageModel {
  readonly plan: PagePlan;
  /** The conversation as the page's crumbs name it. */
  readonly conversation: { readonly id: string; readonly title: string; readonly first: string };
  readonly heading: string;
  /** A child stream's link to the call that started it, for the header; none on other pages. */
  readonly startedBy?: LinkView;
  /** A child stream's relations to where it was started and what it reported, with their correlation, for the audit; none on other pages. */
  readonly streamLinks: LinkView[];
  readonly talks: TalkView[];
  /** The epoch a talk opens, when it is the first talk of its epoch on the page. */
  readonly epochBefore: Map<string, EpochView>;
  /** On a branch's first page, the last talks before the point where it branches, shown folded above it: the history it shares. */
  readonly sharedBefore?: TalkView[];
  /** Links to the branches that leave from inside a talk, placed after it. */
  readonly forksAfter: Map<string, LinkView[]>;
  /** Branches that leave before the first talk (rewinds to the first prompt), or, on a branch page, from the shared history above it. */
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
  /**
   * The prompts of the page's subject (the conversation's active path, a
   * branch or a subagent), each linked to its talk on whichever of its
   * pages holds it: on the subject's first page, when it has two or more.
   */
  readonly outline?: OutlineEntry[];
}

/** One prompt in a page's outline. */
export interface OutlineEntry {
  /** The first line of the prompt, cut; a command by its name and arguments. */
  readonly label: string;
  /** The talk, from the site root, with its anchor. */
  readonly href: string;
  /** The number of the page that holds it, among the subject's pages. */
  readonly page: number;
  readonly time?: string;
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

/** What the index page shows: every conversation, grouped by project. */
export interface IndexModel {
  /** How many conversations there are. */
  readonly conversations: number;
  readonly groups: ProjectGroup[];
}

export function indexModel(conversations: readonly ConversationSummary[]): IndexModel {
  return { conversations: conversations.length, groups: projectGroups(conversations) };
}

/** What the search page holds: the search script of every conversation, which it loads as a query needs them. */
export interface SearchModel {
  readonly scripts: string[];
}

/**
 * The scripts newest conversation first (by start, those with none last): a
 * search that stops at its most results has found the newest, and shows
 * them first while the rest load.
 */
export function searchModel(conversations: readonly ConversationSummary[]): SearchModel {
  const newestFirst = [...conversations].sort((one, other) => (other.facts.from ?? '').localeCompare(one.facts.from ?? '') || one.id.localeCompare(other.id));
  return { scripts: newestFirst.map(({ id }) => searchScriptOf(id)) };
}

/** The steps a page shows under its epochs and talks, each with its children: those of the epochs it opens, then its talks'. */
export function stepsOfPage(model: Pick<PageModel, 'epochBefore' | 'talks' | 'sharedBefore'>): StepView[] {
  return [...[...model.epochBefore.values()].flatMap((epoch) => epoch.steps), ...[...(model.sharedBefore ?? []), ...model.talks].flatMap(stepsOfTalk)];
}

/**
 * A talk as its HTML is made from it, once (site-reader.ts): its steps with
 * their parts read from the conversation's rows.
 */
export function talkWithParts(talk: TalkView, rows: ConversationRows): TalkView {
  return { ...talk, loose: talk.loose.map((step) => withParts(step, rows)), runs: talk.runs.map((run) => ({ ...run, steps: run.steps.map((step) => withParts(step, rows)) })) };
}

/** An epoch's opening as its HTML is made from it, once: its steps with their parts (talkWithParts). */
export function epochWithParts(epoch: EpochView, rows: ConversationRows): EpochView {
  return { ...epoch, steps: epoch.steps.map((step) => withParts(step, rows)) };
}

/**
 * The model of the page `page` of a planned conversation without its steps'
 * parts: what the page's digest is made from (view-digests.ts), so that a
 * page kept from an earlier render parses none of its rows.
 */
export function pageOutline({ conversation, structure, plan }: PlannedConversation, page: PagePlan): PageModel {
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

  // Branch switchers: after the talk a branch leaves from, a link to every branch leaving there, each told apart (branch-labels.ts).
  const forksAfter = new Map<string, LinkView[]>();
  const forksAtStart: LinkView[] = [];
  const talkHolding = (key: string | undefined): TalkView | undefined => (key === undefined ? undefined : stream.talks.find((talk) => talk.keys.includes(key)));
  const linkTo = (name: string, text: string): LinkView => ({ label: text, href: plan.pageOfBranch.get(name) });
  // A branch page is headed by the prompt the branch starts with: that of the talk its first record is in.
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
      // Only the branch this page shows gets a switcher: the others' prompts are not read for it.
      if (!here(branch)) continue;
      const siblings = conversation.branches.branches.filter((other) => other.forkPoint === branch.forkPoint && other !== branch);
      if (siblings.length === 0) continue;
      const labels = branchLabels([branch, ...siblings].map((path) => branchFacts(path, talkHolding, conversation)));
      const links = [branch, ...siblings].map((path) => ({ ...linkTo(path.name, labels.get(path.name)!), ...(here(path) ? { current: true } : {}) }));
      const holder = talkHolding(branch.forkPoint ? `${branch.forkPoint.seq}:${branch.forkPoint.row}` : undefined);
      if (holder && wanted.has(holder.id)) forksAfter.set(holder.id, [...(forksAfter.get(holder.id) ?? []), ...links]);
      else forksAtStart.push(...links);
    }
    for (const explicit of conversation.explicit) {
      const boundary = explicit.record.boundary.ref;
      const holder = talkHolding(boundary ? `${boundary.seq}:${boundary.row}` : undefined);
      if (page.kind === 'conversation' && holder && wanted.has(holder.id)) forksAfter.set(holder.id, [...(forksAfter.get(holder.id) ?? []), linkTo(explicit.record.name, `branch ${explicit.record.name}, made here by ${explicit.record.provenance.actor}`)]);
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
  // The title the index lists it by (facts.ts), so the two never disagree.
  const title = plan.summary.facts.title;
  const heading = page.kind === 'conversation' ? title : page.kind === 'branch' ? (branchPrompt ? `Branch: ${branchPrompt}` : `Branch ${page.subject}`) : (streamTitle(stream, structure, conversation) ?? `Subagent ${shortIds(page.subject)}`);
  const { id, first } = plan.summary;
  return {
    plan: page,
    conversation: { id, title, first },
    heading,
    ...(page.kind === 'stream' && stream.starter ? { startedBy: stream.starter } : {}),
    streamLinks: page.kind === 'stream' ? stream.links : [],
    talks,
    ...(sharedBefore.length > 0 ? { sharedBefore } : {}),
    epochBefore,
    forksAfter,
    forksAtStart,
    ...(branch ? { branch } : {}),
    ...(page.file === plan.summary.first ? { overview: overviewOf(plan, structure, conversation, activeName) } : {}),
    timeline: page.number === 1 ? timeline(page.kind === 'branch' ? talksOfPages(stream.talks, page.siblings, plan) : stream.talks, plan) : [],
    ...(page.number === 1 ? outlineOf(talksOfPages(stream.talks, page.siblings, plan), page.siblings, plan, conversation) : {}),
  };
}

/** The most of a prompt's first line an outline shows. */
const OUTLINE_PROMPT = 100;

/** The outline of a subject's talks on its pages `pages`, when there are two or more (PageModel.outline). */
function outlineOf(talks: readonly TalkView[], pages: readonly string[], plan: ConversationPlan, conversation: BundleConversation): { outline: OutlineEntry[] } | Record<string, never> {
  if (talks.length < 2) return {};
  const outline: OutlineEntry[] = [];
  for (const talk of talks) {
    const file = plan.pageOfTalk.get(talk.id);
    if (file === undefined) continue;
    outline.push({ label: promptLine(talk, conversation) ?? 'No prompt recorded', href: `${file}#${talk.anchor}`, page: pages.indexOf(file) + 1, ...(talk.from !== undefined ? { time: talk.from } : {}) });
  }
  return { outline };
}

/**
 * The line a talk is listed by: the first line of what the person typed,
 * cleaned as a title is; else the slash command the talk opens with; else
 * the notice the runtime put in the prompt's place, in the words its page
 * sums it up in (shown-text.ts, runtimeLine).
 */
function promptLine(talk: TalkView, conversation: BundleConversation): string | undefined {
  let opening: string | undefined;
  for (const step of stepsOfTalk(talk)) {
    if (step.kind !== 'message.external' && step.kind !== 'control.command') continue;
    const parts = partsOfStep(step.kind, step.id, step.evidence, (ref) => conversation.rows.partsOf(ref)).filter((part) => part.k === 'text');
    const texts = parts.map((part) => part.view.segments.map((segment) => segment.text).join(''));
    for (const [index, text] of texts.entries()) {
      const typed = step.kind === 'message.external' && !step.flags.includes('injected') && parts[index]!.view.context === undefined && !OPENING_TAG.test(text);
      const line = typed ? text.split('\n').find((candidate) => candidate.trim() !== '') : undefined;
      if (line !== undefined) return cut(promptTitleText(line) ?? singleSpaced(line), OUTLINE_PROMPT);
    }
    const text = texts.join('\n');
    if (opening === undefined && text.trim() !== '') opening = slashCommandOf(text) ?? runtimeLine(text, parts.find((part) => part.view.context !== undefined)?.view.context);
  }
  return opening === undefined ? undefined : cut(singleSpaced(opening), OUTLINE_PROMPT);
}

/**
 * The talks placed on these pages: those of a branch, after its fork. The
 * main stream holds every path's talks, and a branch page's timeline is of
 * its own path; the conversation's first page has the timeline of them all.
 */
function talksOfPages(talks: readonly TalkView[], pages: readonly string[], plan: ConversationPlan): TalkView[] {
  const own = new Set(pages);
  return talks.filter((talk) => own.has(plan.pageOfTalk.get(talk.id) ?? ''));
}


/**
 * Each child stream as search results name it: "subagent" and its task, as
 * its page is headed (facts.ts, streamTitle), else its name with every UUID
 * in it cut short.
 */
export function subagentNames(structure: ConversationStructure, conversation: BundleConversation): Map<string, string> {
  const names = new Map<string, string>();
  for (const stream of structure.streams) {
    if (!stream.child) continue;
    const task = streamTitle(stream, structure, conversation);
    names.set(stream.id, task === undefined ? `subagent ${shortIds(stream.name)}` : `subagent “${task}”`);
  }
  return names;
}

/** A name with every UUID in it cut to its first eight digits, as a reader tells them apart. */
function shortIds(name: string): string {
  return name.replace(/\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '$1');
}

/**
 * The most talks, and the most of their HTML, of shared history a branch
 * page shows above its own: the whole history is on the conversation's
 * pages.
 */
const SHARED_TALKS = 3;
const SHARED_BYTES = 96 * 1024;

/**
 * The last talks before a fork, up to the one that holds the fork point, of
 * the path the conversation's pages show (a talk on several paths is placed
 * on those first, plan.ts).
 */
function sharedHistory(talks: readonly TalkView[], holder: TalkView, plan: ConversationPlan): TalkView[] {
  const before = talks.slice(0, talks.indexOf(holder) + 1).filter((talk) => plan.pageOfTalk.get(talk.id)?.startsWith('c/'));
  const shown: TalkView[] = [];
  let bytes = 0;
  for (const talk of before.slice(-SHARED_TALKS).reverse()) {
    if ((bytes += plan.talkBytes?.get(talk.id) ?? 0) > SHARED_BYTES) break;
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
    streams: structure.streams.map((candidate) => ({ label: `${candidate.child ? 'child' : 'main'} stream ${candidate.name}${candidate.label ? `: ${candidate.label}` : ''} (${counted(candidate.talks.length, 'talk', 'talks')})`, href: plan.pageOfStream.get(candidate.id) })),
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
