// The labels of the branches that leave one point of a conversation, as the
// list at that point shows them. A branch is told by the prompt it starts
// with and how many prompts it holds; when two of them read the same (a
// prompt typed again after an interruption, or after a rewind), each says
// what differs: whether its first answer was interrupted and after how long,
// how its answer starts, when its prompt was typed. The labels are a
// function of the branches alone, the same on every page that lists them.

import type { Branch } from '../../branches/natural.ts';
import { isPrompt } from '../../branches/tree.ts';
import type { BundleConversation } from './bundle.ts';
import { cut, promptOfTalk } from './facts.ts';
import { stepText } from './search-text.ts';
import { counted } from './shown-text.ts';
import { stepsOfTalk } from './streams.ts';
import type { StepView, TalkView } from './views.ts';

/** The most of a prompt that labels the branch it starts. */
const PROMPT_LABEL = 80;
/** The most of an answer's start that tells two branches apart. */
const ANSWER_LABEL = 48;

/** What tells one branch from the others at its point, read from the bundle. */
export interface BranchFacts {
  /** The branch's name: stable, and the last thing that orders two branches alike in all else. */
  readonly name: string;
  /** The start of the prompt it begins with, when it begins with one. */
  readonly prompt?: string;
  /** Prompts typed on it. */
  readonly prompts: number;
  /** The branch the conversation's own pages show, the latest. */
  readonly latest: boolean;
  /** When its first record was written (ISO 8601). */
  readonly started?: string;
  /** When the person interrupted its first answer: how long after its first record, when both times are recorded. */
  readonly interrupted?: { readonly after?: number };
  /** The start of its first answer's text, when it has one. */
  readonly answer?: string;
}

/**
 * The facts of a natural branch: `talkOf` gives the talk that holds a
 * record (by its `seq:row`), whose steps hold the prompt and its answer.
 */
export function branchFacts(branch: Branch, talkOf: (key: string) => TalkView | undefined, conversation: BundleConversation): BranchFacts {
  const talk = talkOf(`${branch.first.seq}:${branch.first.row}`);
  const prompt = talk ? promptOfTalk(talk, conversation, PROMPT_LABEL) : undefined;
  const answer = talk ? firstAnswer(stepsOfTalk(talk), conversation) : undefined;
  // The first answer's records: from the branch's first record to the next prompt typed on it.
  const next = branch.path.findIndex((record, index) => index > 0 && isPrompt(record));
  const interrupt = branch.path.slice(0, next < 0 ? undefined : next).find((record) => record.flags.includes('interrupt'));
  const after = Date.parse(interrupt?.ts ?? '') - Date.parse(branch.first.ts ?? '');
  return {
    name: branch.name,
    ...(prompt ? { prompt } : {}),
    prompts: branch.turns,
    latest: branch.active,
    ...(branch.first.ts !== undefined ? { started: branch.first.ts } : {}),
    ...(interrupt ? { interrupted: Number.isFinite(after) ? { after: Math.max(0, after) } : {} } : {}),
    ...(answer ? { answer: cut(answer, ANSWER_LABEL) } : {}),
  };
}

/** The text of the first reply of the assistant among these steps and their children, white space made single. */
function firstAnswer(steps: readonly StepView[], conversation: BundleConversation): string | undefined {
  for (const step of steps) {
    if (step.kind === 'message.assistant') {
      const text = stepText(step, conversation, { textOnly: true });
      if (text !== '') return text;
    }
    const within = firstAnswer(step.children, conversation);
    if (within !== undefined) return within;
  }
  return undefined;
}

/**
 * What a detail says of one branch of a group whose labels read the same so
 * far, or nothing; a detail is added to the group only when the branches
 * differ in it.
 */
type Detail = (facts: BranchFacts, group: readonly BranchFacts[]) => string;

const DETAILS: readonly Detail[] = [
  (facts) => (facts.interrupted !== undefined ? `interrupted${facts.interrupted.after !== undefined ? ` after ${elapsed(facts.interrupted.after)}` : ''}` : ''),
  (facts) => (facts.answer !== undefined ? `answer “${facts.answer}”` : 'no answer'),
  (facts, group) => typedAt(facts.started, group),
];

/**
 * The label of each branch at one point, by name: distinct for every two
 * branches, whatever the order they are given in. "the latest branch" is
 * said of the latest, after what tells it apart, never instead of it.
 */
export function branchLabels(branches: readonly BranchFacts[]): Map<string, string> {
  // In one order whatever the order given: the ordinal of the last resort must not depend on the page.
  const sorted = [...branches].sort((a, b) => compare(a.started ?? '', b.started ?? '') || compare(a.name, b.name));
  const labels = new Map(sorted.map((facts) => [facts.name, `${facts.prompt !== undefined ? `“${facts.prompt}”` : 'no prompt'} · ${counted(facts.prompts, 'prompt', 'prompts')}`]));
  for (const group of alike(sorted, labels)) tellApart(group, labels, DETAILS);
  for (const facts of sorted) if (facts.latest) labels.set(facts.name, `${labels.get(facts.name)} · the latest branch`);
  return labels;
}

/**
 * Adds to the labels of branches that read the same the first detail they
 * differ in, then the next to those that still read the same; numbers those
 * alike in every detail (typed in the same second), in the order given.
 */
function tellApart(group: readonly BranchFacts[], labels: Map<string, string>, details: readonly Detail[]): void {
  const [detail, ...rest] = details;
  if (detail === undefined) {
    group.forEach((facts, index) => labels.set(facts.name, `${labels.get(facts.name)} · ${index + 1} of ${group.length}`));
    return;
  }
  const said = group.map((facts) => detail(facts, group));
  if (new Set(said).size > 1) group.forEach((facts, index) => said[index] !== '' && labels.set(facts.name, `${labels.get(facts.name)} · ${said[index]}`));
  for (const still of alike(group, labels)) tellApart(still, labels, rest);
}

/** The groups of two or more branches whose labels read the same, each in the order given. */
function alike(branches: readonly BranchFacts[], labels: ReadonlyMap<string, string>): BranchFacts[][] {
  const byLabel = new Map<string, BranchFacts[]>();
  for (const facts of branches) {
    const label = labels.get(facts.name)!;
    byLabel.set(label, [...(byLabel.get(label) ?? []), facts]);
  }
  return [...byLabel.values()].filter((group) => group.length > 1);
}

/** When a branch's prompt was typed: the time of day when the group's are all on one day, else the date too. */
function typedAt(started: string | undefined, group: readonly BranchFacts[]): string {
  if (started === undefined) return 'time not recorded';
  const days = new Set(group.map((facts) => facts.started?.slice(0, 10)));
  const time = started.slice(11, 19);
  return days.size === 1 ? `typed at ${time}` : `typed ${started.slice(0, 10)} at ${time}`;
}

/** A short time in words: seconds under a minute, else minutes, else hours and minutes. */
export function elapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 1) return 'under a second';
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
