// What a conversation is called and where it happened, from its records:
// the title, the project, the git branches its prompts were typed on and
// the models its provider calls used. Every value
// is one the records state; none is made up when they state nothing.

import type { IndexEntry } from '../index/session-index.ts';
import type { TitleSource } from '../model/vocabulary.ts';
import type { ProviderCall } from './provider-calls.ts';
import { promptTitleText, recordedTitleText } from './title-text.ts';

/**
 * A summary record in another session's file whose leaf is a record of this
 * one: Claude Code 1.0 and 2.0 write, at the top of a session they resume
 * or continue, summaries of the branches of earlier sessions of the same
 * project folder. Where it is (`session`, `{seq, row}`), the leaf it names,
 * and its text as the record gives it.
 */
export interface SummaryElsewhere {
  readonly session: string;
  readonly seq: number;
  readonly row: number;
  readonly leaf: string;
  readonly summary: string;
}

export interface ConversationNames {
  readonly title?: string;
  readonly title_source?: TitleSource;
  /** Every summary in another session's file that names a record of this conversation's main stream, in order of session, seq and row: the round carries them, as the evidence of a title found there. */
  readonly summaries_elsewhere?: SummaryElsewhere[];
  readonly project?: { readonly folder: string; readonly cwd?: string };
  /** The git branches the main stream's typed prompts and landed files name (else any stream's), each once, in the order they were first named. */
  readonly git_branches?: string[];
  readonly models?: string[];
}

/** How many characters of a first prompt make a title. */
export const TITLE_CHARACTERS = 200;

/**
 * `main` is the main stream's records in line order, `activePath` its active
 * branch, `others` every other stream's records, `calls` every stream's
 * calls, `elsewhere` summaries found in other sessions' files.
 */
export function nameConversation(main: readonly IndexEntry[], activePath: readonly IndexEntry[], others: readonly IndexEntry[], calls: readonly ProviderCall[], elsewhere: readonly SummaryElsewhere[] = []): ConversationNames {
  const ids = new Set(main.flatMap((record) => (record.id !== undefined ? [record.id] : [])));
  const summaries = summariesOf(elsewhere.filter((summary) => ids.has(summary.leaf)));
  const title = titleOf(main, activePath, summaries);
  const folder = main.find((record) => record.project !== undefined)?.project ?? others.find((record) => record.project !== undefined)?.project;
  const cwd = main.find((record) => record.cwd !== undefined)?.cwd ?? others.find((record) => record.cwd !== undefined)?.cwd;
  const models = [...new Set(calls.flatMap((call) => (call.synthetic || call.model === undefined ? [] : [call.model])))].sort();
  const branchesOf = (records: readonly IndexEntry[]): string[] => [...new Set(records.flatMap((record) => (record.gitBranch !== undefined ? [record.gitBranch] : [])))];
  const named = branchesOf(main);
  const branches = named.length > 0 ? named : branchesOf(others);
  return {
    ...(title ?? {}),
    ...(summaries.length > 0 ? { summaries_elsewhere: summaries } : {}),
    ...(folder !== undefined ? { project: { folder, ...(cwd !== undefined ? { cwd } : {}) } } : {}),
    ...(branches.length > 0 ? { git_branches: branches } : {}),
    ...(models.length > 0 ? { models } : {}),
  };
}

// A title the person gave wins over one the runtime made; a generated title
// names the whole session, a summary only the branch whose leaf it names, so
// it counts only when that leaf is on the active branch. The latest of each
// kind in line order is the current one, of those with words left once the
// runtime's markup is taken out (a title Claude Code made of its own caveat
// has none). With none, the first prompt; a session in which no prompt was
// typed, only slash commands run, by its first command the agent answered
// (`/init`, `/review-pr 123`), else its first command (`/model`).
function titleOf(main: readonly IndexEntry[], activePath: readonly IndexEntry[], elsewhere: readonly SummaryElsewhere[]): { title: string; title_source: TitleSource } | undefined {
  const latest = (source: TitleSource, where: (record: IndexEntry) => boolean = () => true): { title: string; title_source: TitleSource } | undefined => {
    for (let at = main.length - 1; at >= 0; at--) {
      const record = main[at]!;
      if (record.title !== source || record.label === undefined || !where(record)) continue;
      const title = recordedTitleText(record.label);
      if (title !== undefined) return { title: shortened(title), title_source: source };
    }
    return undefined;
  };
  const onPath = new Set(activePath.flatMap((record) => (record.id !== undefined ? [record.id] : [])));
  const given = latest('custom-title') ?? latest('ai-title') ?? latest('summary', (record) => record.leaf !== undefined && onPath.has(record.leaf)) ?? summaryElsewhere(elsewhere, activePath);
  if (given !== undefined) return given;
  for (const record of main) {
    const prompt = record.prompt === undefined ? undefined : promptTitleText(record.prompt);
    if (prompt !== undefined) return { title: shortened(prompt), title_source: 'first-prompt' };
  }
  const command = firstCommand(main);
  return command !== undefined ? { title: shortened(command), title_source: 'slash-command' } : undefined;
}

// A summary in another session's file counts as one in the session's own
// does, when its leaf is on the active branch, but after any of its own: the
// session's file is the nearer evidence. Of several, the one whose leaf is
// furthest along the active branch names the most of it; of those naming
// one leaf, the last in order of session, seq and row.
function summaryElsewhere(elsewhere: readonly SummaryElsewhere[], activePath: readonly IndexEntry[]): { title: string; title_source: TitleSource } | undefined {
  const position = new Map(activePath.flatMap((record, at) => (record.id !== undefined ? [[record.id, at] as const] : [])));
  let best: { title: string; at: number } | undefined;
  for (const summary of elsewhere) {
    const at = position.get(summary.leaf);
    const title = at === undefined ? undefined : recordedTitleText(summary.summary);
    if (at !== undefined && title !== undefined && (best === undefined || at >= best.at)) best = { title, at };
  }
  return best !== undefined ? { title: shortened(best.title), title_source: 'summary' } : undefined;
}

/** The summaries elsewhere a session node's attributes carry (`summaries_elsewhere`), each that has every field. */
export function summariesCarried(attrs: Readonly<Record<string, unknown>> | undefined): SummaryElsewhere[] {
  const carried = attrs?.summaries_elsewhere;
  if (!Array.isArray(carried)) return [];
  return carried.filter(
    (item): item is SummaryElsewhere =>
      typeof item === 'object' && item !== null && typeof item.session === 'string' && Number.isInteger(item.seq) && Number.isInteger(item.row) && typeof item.leaf === 'string' && typeof item.summary === 'string',
  );
}

/** Each summary once, by where it is, in order of session, seq and row. */
function summariesOf(elsewhere: readonly SummaryElsewhere[]): SummaryElsewhere[] {
  const byPlace = new Map(elsewhere.map((summary) => [`${summary.session}\u0000${summary.seq}\u0000${summary.row}`, summary]));
  return [...byPlace.values()]
    .map(({ session, seq, row, leaf, summary }) => ({ session, seq, row, leaf, summary }))
    .sort((a, b) => (a.session < b.session ? -1 : a.session > b.session ? 1 : a.seq - b.seq || a.row - b.row));
}

// A command the agent answered (it expanded into a prompt, as `/init` does)
// says what the session was for; one that ran in the runtime alone
// (`/model`, `/context`) only when no command was answered.
function firstCommand(main: readonly IndexEntry[]): string | undefined {
  let unanswered: string | undefined;
  for (let at = 0; at < main.length; at++) {
    const command = main[at]!.command === undefined ? undefined : recordedTitleText(main[at]!.command!);
    if (command === undefined) continue;
    // Answered: the agent wrote before anything else came from the person.
    let next = at + 1;
    while (next < main.length && main[next]!.from !== 'agent' && main[next]!.from !== 'person') next++;
    if (main[next]?.from === 'agent') return command;
    unanswered ??= command;
  }
  return unanswered;
}

// A long title is cut at a whole character with an ellipsis, so a title is
// one readable line.
function shortened(title: string): string {
  const characters = Array.from(title);
  return characters.length <= TITLE_CHARACTERS ? title : `${characters.slice(0, TITLE_CHARACTERS).join('').trimEnd()}…`;
}
