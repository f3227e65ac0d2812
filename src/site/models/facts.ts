// What a reader is told of a conversation before opening it: its title,
// project, models, first prompt, tokens, when and how long, and its counts.
// The index shows these for every conversation and a conversation page's
// header may show them too; both read them here, from the bundle's data.

import type { Usage } from '../../session-data/format.ts';
import type { BundleConversation } from './bundle.ts';
import { partsOfStep } from './row-outline.ts';
import { stepText } from './search-text.ts';
import { promptTitleText, recordedTitleText } from '../../assembly/title-text.ts';
import { OPENING_TAG } from './parts.ts';
import { compact, counted, tokensShown } from './shown-text.ts';
import { ownTalks, refsOf, stepsOfTalk, type ConversationStructure } from './streams.ts';
import type { PartView, StepView, StreamView, TalkView } from './views.ts';

/** How much of the first prompt the preview keeps: two lines of a row, with room to spare. */
const PREVIEW = 280;
/** How much of the first prompt a title made from it keeps. */
const TITLE = 80;

export interface ProjectFacts {
  /** The project folder the transcript was stored under. */
  readonly folder: string;
  /** The working folder as a reader knows it: the one the records name, or the folder's name read as a path. */
  readonly path: string;
  /** The records name the working folder: `path` is theirs, not read from the folder's name. */
  readonly named?: true;
}

export interface TokenFacts {
  readonly input: number;
  readonly output: number;
  readonly cache_read: number;
  readonly cache_write: number;
  readonly total: number;
  /** Some provider calls did not say what they used, so the total is a lower bound. */
  readonly lowerBound: boolean;
}

export interface ConversationFacts {
  readonly title: string;
  /** Where the title comes from: the runtime's own title, the first prompt, or the conversation's id when there is neither. */
  readonly titleSource: string;
  readonly project?: ProjectFacts;
  /** The git branches the session worked on, in the order its prompts first named them; empty when none is recorded. */
  readonly gitBranches: string[];
  readonly models: string[];
  /** The start of the first prompt a person typed, white space made single spaces. */
  readonly firstPrompt?: string;
  /** Undefined when no provider call said what it used: unknown, not zero. */
  readonly tokens?: TokenFacts;
  readonly from?: string;
  readonly to?: string;
  /**
   * The prompts of the conversation's own pages: the talks of its main stream
   * (each a person's prompt and what followed it) on its active branch, not
   * those of its other branches, read on their own pages, nor its subagents'.
   * The index row and the page's header both count these.
   */
  readonly prompts: number;
  /** The branches besides the active one. */
  readonly branches: number;
  /** The child streams: subagents the conversation started. */
  readonly subagents: number;
}

/** The facts of a conversation, from its session node where it states them, and otherwise from its rows and structure. */
export function conversationFacts(conversation: BundleConversation, structure: ConversationStructure): ConversationFacts {
  const attrs = [...structure.nodes.values()].find((node) => node.kind === 'session')?.attrs ?? {};
  const main = structure.streams.find((stream) => !stream.child);
  const firstPrompt = main ? firstPromptOf(main.talks.flatMap(stepsOfTalk), conversation) : undefined;
  const project = projectOf(attrs.project, conversation.source);
  const models = stringsOf(attrs.models) ?? modelsOfCalls(structure) ?? conversation.models;
  const span = spanOf(structure);
  const { title, titleSource } = titleOf(attrs, conversation, firstPrompt, structure);
  const tokens = tokensOf(structure);
  return {
    title,
    titleSource,
    ...(project ? { project } : {}),
    gitBranches: stringsOf(attrs.git_branches) ?? [],
    models,
    ...(firstPrompt !== undefined ? { firstPrompt } : {}),
    ...(tokens ? { tokens } : {}),
    ...span,
    prompts: main ? ownTalks(conversation, main.talks).length : 0,
    branches: conversation.branches.branches.filter((branch) => !branch.active).length + conversation.explicit.length,
    subagents: structure.streams.filter((stream) => stream.child).length,
  };
}

/** A session attribute that is a list of strings, or undefined. */
function stringsOf(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? (value as string[]) : undefined;
}

/**
 * The title a conversation is listed and headed by: the one it records, else
 * its first typed prompt, else the task of its first subagent (a session whose
 * only records are its subagents' files), else its id's first eight digits,
 * as a reader tells ids apart.
 */
function titleOf(attrs: Record<string, unknown>, conversation: BundleConversation, firstPrompt: string | undefined, structure: ConversationStructure): { title: string; titleSource: string } {
  if (typeof attrs.title === 'string' && attrs.title.trim() !== '') return { title: attrs.title, titleSource: typeof attrs.title_source === 'string' ? attrs.title_source : 'runtime' };
  if (conversation.title !== undefined && conversation.title.trim() !== '') return { title: conversation.title, titleSource: 'runtime' };
  if (firstPrompt !== undefined) return { title: cut(firstPrompt, TITLE), titleSource: 'first-prompt' };
  for (const stream of structure.streams) {
    const task = stream.child ? streamTitle(stream, structure, conversation) : undefined;
    if (task !== undefined) return { title: task, titleSource: 'subagent-task' };
  }
  return { title: `Conversation ${conversation.id.slice(0, 8)}`, titleSource: 'id' };
}

/**
 * What a child stream is about, as a title: the description of the call that
 * started it (a subagent's task), else the first line of that call's prompt,
 * else the first prompt of the stream itself; undefined when none of these
 * has text. A stream's own label, where the runtime gives one, comes first.
 */
export function streamTitle(stream: StreamView, structure: ConversationStructure, conversation: BundleConversation): string | undefined {
  const label = stream.label === undefined ? undefined : recordedTitleText(stream.label);
  if (label !== undefined) return cut(label, TITLE);
  const call = stream.startedBy === undefined ? undefined : structure.nodes.get(stream.startedBy);
  if (call !== undefined) {
    for (const part of partsOfStep(call.kind, call.id, refsOf(call), (ref) => conversation.rows.partsOf(ref))) {
      if (part.k !== 'call') continue;
      const { description, prompt } = part.view.tool ?? {};
      const told = [description, prompt?.split('\n').find((line) => line.trim() !== '')].map((text) => (text === undefined ? undefined : promptTitleText(text))).find((text) => text !== undefined);
      if (told !== undefined) return cut(told, TITLE);
    }
  }
  for (const talk of stream.talks) {
    const prompt = promptAmong(stepsOfTalk(talk), conversation, TITLE, typed);
    if (prompt !== undefined) return prompt;
  }
  return undefined;
}

/**
 * A part of a prompt's message that a person typed: neither context the part
 * view already took for the runtime's nor text that opens with a tag
 * (parts.ts), which says nothing of the task.
 */
function typed(text: string, view: PartView): boolean {
  return view.context === undefined && !OPENING_TAG.test(text);
}

/**
 * The project as the session node states it (`{ folder, cwd? }`), or from
 * the landed file's place under its source root, whose first folder is the
 * project's: its name is the working folder with every `/` made `-`, read
 * back here as a path (a `-` that was in a folder's name reads as `/` too,
 * which only the records' working folder can tell apart).
 */
export function projectOf(stated: unknown, source: string | undefined): ProjectFacts | undefined {
  if (typeof stated === 'object' && stated !== null && typeof (stated as { folder?: unknown }).folder === 'string') {
    const { folder, cwd } = stated as { folder: string; cwd?: unknown };
    return typeof cwd === 'string' && cwd !== '' ? { folder, path: cwd, named: true } : { folder, path: folderAsPath(folder) };
  }
  const folder = source?.split('/')[0];
  if (folder === undefined || folder === '' || source === folder) return undefined;
  return { folder, path: folderAsPath(folder) };
}

function folderAsPath(folder: string): string {
  return folder.startsWith('-') ? folder.replace(/-/g, '/') : folder;
}

/** The models the provider calls name, each once; undefined when none names one. */
function modelsOfCalls(structure: ConversationStructure): string[] | undefined {
  const models = new Set<string>();
  for (const node of structure.nodes.values()) if (node.kind === 'llm.call' && typeof node.attrs?.model === 'string') models.add(node.attrs.model);
  return models.size > 0 ? [...models] : undefined;
}

function tokensOf(structure: ConversationStructure): TokenFacts | undefined {
  const { usage: sums, calls, told } = usageOfCalls(structure);
  if (told === 0) return undefined;
  return { ...sums, total: sums.input + sums.output + sums.cache_read + sums.cache_write, lowerBound: told < calls };
}

/** What the provider calls used, summed; how many calls there are, and how many said what they used. */
export function usageOfCalls(structure: ConversationStructure): { usage: Required<Usage>; calls: number; told: number } {
  const usage = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
  let told = 0;
  let calls = 0;
  for (const node of structure.nodes.values()) {
    if (node.kind !== 'llm.call') continue;
    calls++;
    const used = node.attrs?.usage;
    if (typeof used !== 'object' || used === null) continue;
    told++;
    for (const key of Object.keys(usage) as (keyof typeof usage)[]) usage[key] += (used as Usage)[key] ?? 0;
  }
  return { usage, calls, told };
}

/** The first and last time any talk of the conversation records; none when no talk records one. */
export function spanOf(structure: ConversationStructure): { from: string; to: string } | undefined {
  const times = structure.streams.flatMap((stream) => stream.talks.flatMap((talk) => [talk.from, talk.to])).filter((time): time is string => time !== undefined).sort();
  return times.length > 0 ? { from: times[0]!, to: times.at(-1)! } : undefined;
}

/**
 * The first prompt a person typed: the first message from outside the agent
 * that has text. Commands and injected context are steps of their own kinds,
 * so they are not taken for it; context the runtime wraps in a tag and adds to
 * the prompt's own message (an IDE's opened file) is not taken either.
 */
function firstPromptOf(steps: readonly StepView[], conversation: BundleConversation): string | undefined {
  return promptAmong(steps, conversation, PREVIEW, typed);
}

/** The start of the prompt a talk opens with, at most `most` characters, white space made single spaces: what tells one path from another at a fork. */
export function promptOfTalk(talk: TalkView, conversation: BundleConversation, most: number): string | undefined {
  return promptAmong(stepsOfTalk(talk), conversation, most);
}

function promptAmong(steps: readonly StepView[], conversation: BundleConversation, most: number, taken: (text: string, view: PartView) => boolean = () => true): string | undefined {
  for (const step of steps) {
    if (step.kind !== 'message.external') continue;
    // The words of the prompt, as a title shows them: no markdown marks, no runtime's tags (assembly/title-text.ts).
    const text = promptTitleText(stepText(step, conversation, { textOnly: true, taken, asWritten: true }));
    if (text !== undefined) return cut(text, most);
  }
  return undefined;
}

/** The text cut to at most `most` characters, at a space when there is one in its last fifth, with an ellipsis when cut. */
export function cut(text: string, most: number): string {
  if (text.length <= most) return text;
  const space = text.lastIndexOf(' ', most - 1);
  return `${text.slice(0, space > most * 0.8 ? space : most - 1)}…`;
}

/** One conversation as a row of the index. */
export interface IndexRow {
  readonly href: string;
  readonly title: string;
  readonly firstPrompt?: string;
  /** When it started, in UTC, to the minute. */
  readonly started?: { readonly iso: string; readonly shown: string };
  readonly duration?: string;
  readonly prompts: number;
  readonly models: ModelName[];
  /** An em dash when no call said what it used. */
  readonly tokens: string;
  /** What the tokens were made of, for the row's tooltip. */
  readonly tokensDetail?: string;
  /** Branches and subagents, each only when there are any. */
  readonly counts: string[];
}

/** A model as a reader is shown it, and its whole id. */
export interface ModelName {
  readonly shown: string;
  readonly id: string;
}

export interface ProjectGroup {
  /** The project's path, or a word saying it is unknown. */
  readonly name: string;
  readonly folder?: string;
  /** The conversations with at least one turn of their own. */
  readonly rows: IndexRow[];
  /**
   * The conversations whose main stream holds no turn: a session opened and
   * left, whose only records are its subagents' (a runtime's warm-up), or
   * whose main file was lost. Listed apart, after the others, so that they do
   * not crowd out the conversations a reader is looking for.
   */
  readonly withoutTurns: IndexRow[];
}

/** The conversations an index shows: `first` is the page each opens on. */
export interface IndexedConversation {
  readonly id: string;
  readonly first: string;
  readonly facts: ConversationFacts;
}

const UNKNOWN_PROJECT = 'Project not recorded';

/**
 * The index: conversations grouped by project, the projects with the newest
 * activity first, and in each the newest conversations first. A project is
 * the working folder the records name. A conversation whose records name
 * none (an empty main file) joins the project its folder's other
 * conversations all name, rather than showing the folder's name read as a
 * path beside it; otherwise it goes by that name.
 */
export function projectGroups(conversations: readonly IndexedConversation[]): ProjectGroup[] {
  const namedIn = namedProjectOfFolders(conversations);
  const groups = new Map<string, { folder?: string; latest: string; conversations: IndexedConversation[] }>();
  for (const conversation of conversations) {
    const { project, from, to } = conversation.facts;
    const name = project === undefined ? UNKNOWN_PROJECT : project.named ? project.path : (namedIn.get(project.folder) ?? project.path);
    const group = groups.get(name) ?? { ...(project ? { folder: project.folder } : {}), latest: '', conversations: [] };
    groups.set(name, group);
    group.conversations.push(conversation);
    const last = to ?? from ?? '';
    if (last > group.latest) group.latest = last;
  }
  const newestFirst = (a: string, b: string): number => (a < b ? 1 : a > b ? -1 : 0);
  return [...groups]
    .sort(([nameA, a], [nameB, b]) => newestFirst(a.latest, b.latest) || (nameA < nameB ? -1 : 1))
    .map(([name, group]) => {
      const rows = group.conversations.sort((a, b) => newestFirst(a.facts.from ?? '', b.facts.from ?? '') || (a.id < b.id ? -1 : 1));
      return {
        name,
        ...(group.folder !== undefined ? { folder: group.folder } : {}),
        rows: rows.filter((row) => row.facts.prompts > 0).map(indexRow),
        withoutTurns: rows.filter((row) => row.facts.prompts === 0).map(indexRow),
      };
    });
}

/**
 * For each folder whose conversations' records all name one working folder,
 * that folder. A folder whose records name several holds several projects
 * (a folder of collected transcripts), and which of them an unnamed
 * conversation belongs to is not known.
 */
function namedProjectOfFolders(conversations: readonly IndexedConversation[]): Map<string, string> {
  const named = new Map<string, Set<string>>();
  for (const { facts } of conversations) {
    if (!facts.project?.named) continue;
    const paths = named.get(facts.project.folder) ?? new Set<string>();
    named.set(facts.project.folder, paths.add(facts.project.path));
  }
  return new Map([...named].flatMap(([folder, paths]) => (paths.size === 1 ? [[folder, [...paths][0]!] as const] : [])));
}

function indexRow({ first, facts }: IndexedConversation): IndexRow {
  const { tokens } = facts;
  const counts = [...(facts.branches > 0 ? [counted(facts.branches, 'other branch', 'other branches')] : []), ...(facts.subagents > 0 ? [counted(facts.subagents, 'subagent', 'subagents')] : [])];
  // A title made from the first prompt would be repeated by the preview: the row shows the prompt once, as its title, at the preview's length.
  const prompt = facts.firstPrompt;
  const titleIsPrompt = prompt !== undefined && prompt.startsWith(facts.title.replace(/…$/, ''));
  return {
    href: first,
    title: titleIsPrompt && prompt.length > facts.title.length ? prompt : facts.title,
    ...(prompt !== undefined && !titleIsPrompt ? { firstPrompt: prompt } : {}),
    ...(facts.from !== undefined ? { started: { iso: facts.from, shown: timeShown(facts.from) } } : {}),
    ...(facts.from !== undefined && facts.to !== undefined ? { duration: duration(Date.parse(facts.to) - Date.parse(facts.from)) } : {}),
    prompts: facts.prompts,
    models: facts.models.map(modelName),
    tokens: tokens ? `${tokens.lowerBound ? '≥ ' : ''}${compact(tokens.total)} tokens` : '—',
    ...(tokens ? { tokensDetail: `${tokensShown(tokens)!.detail}${tokens.lowerBound ? '; some calls did not say what they used' : ''}` } : {}),
    counts,
  };
}

/**
 * A model id as a reader is shown it: without the release date a provider
 * puts at its end (`claude-opus-4-5-20251101` is shown `claude-opus-4-5`),
 * which makes ids long enough to wrap and tells a reader little. The whole id
 * stays in the page, as the name's tooltip.
 */
export function modelName(id: string): ModelName {
  return { shown: id.replace(/-\d{8}$/, ''), id };
}

/** Git branches as a header shows them: up to three by name, and past three the last one and how many came before it. */
export function gitBranchesShown(names: readonly string[]): string {
  if (names.length === 1) return `git branch ${names[0]}`;
  if (names.length <= 3) return `git branches ${names.join(', ')}`;
  return `git branch ${names.at(-1)} (after ${names.length - 1} others)`;
}

/** An ISO time as a reader is shown it, to the minute, in the zone the transcript gives: 2026-01-04 19:00 UTC, or UTC+02:00. */
export function timeShown(iso: string): string {
  const zone = /(Z|[+-]\d\d:?\d\d)$/.exec(iso)?.[1];
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}${zone === undefined ? '' : zone === 'Z' ? ' UTC' : ` UTC${zone}`}`;
}

/** How long something lasted, in words: under a minute, minutes, hours and minutes, or days and hours. */
export function duration(ms: number): string {
  const minutes = Math.round(ms / 60000);
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days ${hours % 24} h`;
}
