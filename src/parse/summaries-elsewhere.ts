// Summaries in one session's file of another session's branch. Claude Code
// 1.0 and 2.0 write, at the top of a session they resume or continue, a
// summary of each branch of earlier sessions of the project folder, naming
// the branch's leaf: the title of that earlier session, in a file that is not
// its own. A parse finds them after it has parsed its sessions, in the
// sessions it assembled, and parses each session that holds such a leaf
// again with them. That session's round then carries each summary, where it
// is and what it says (conversation-names.ts, `summaries_elsewhere`), so that
// the conversation's own rounds are all its export needs to show the title,
// and to assemble it again.
//
// Finding the session that holds a leaf reads the index of every stored
// session, so it is done only in a pass that assembled a session holding a
// summary whose leaf is none of its own records: such files stop changing
// once the session ends, and Claude Code 2.1 writes no summary records.

import { storedSessions } from '../landing/session-folder.ts';
import { loadSessionIndex, type SessionIndex } from '../index/session-index.ts';
import type { SummaryElsewhere } from '../assembly/conversation-names.ts';

/** The summaries a session's records hold whose leaf is none of its records, with the project folders its files are in. */
export function summariesOfOthers(index: SessionIndex): { summaries: SummaryElsewhere[]; projects: string[] } | undefined {
  const own = new Set(index.entries.flatMap((entry) => (entry.id !== undefined ? [entry.id] : [])));
  const summaries = index.entries.flatMap((entry) =>
    entry.title === 'summary' && entry.leaf !== undefined && entry.label !== undefined && !own.has(entry.leaf) ? [{ session: index.session, seq: entry.seq, row: entry.row, leaf: entry.leaf, summary: entry.label }] : [],
  );
  return summaries.length > 0 ? { summaries, projects: projectsOf(index) } : undefined;
}

function projectsOf(index: SessionIndex): string[] {
  return [...new Set(index.entries.flatMap((entry) => (entry.project !== undefined ? [entry.project] : [])))];
}

/**
 * For each stored session of the data folder whose main stream holds the
 * leaf of one of the `held` summaries, in a project folder the summary's
 * session is in too: the summaries that name its records. Sessions with
 * none are left out.
 */
export function sessionsSummarisedElsewhere(data: string, held: readonly { readonly summaries: readonly SummaryElsewhere[]; readonly projects: readonly string[] }[]): Map<string, SummaryElsewhere[]> {
  const byLeaf = new Map<string, { summary: SummaryElsewhere; projects: readonly string[] }[]>();
  for (const { summaries, projects } of held) for (const summary of summaries) byLeaf.set(summary.leaf, [...(byLeaf.get(summary.leaf) ?? []), { summary, projects }]);
  const found = new Map<string, SummaryElsewhere[]>();
  if (byLeaf.size === 0) return found;
  for (const session of storedSessions(data)) {
    let index: SessionIndex;
    try {
      index = loadSessionIndex(data, session);
    } catch {
      // A session whose index cannot be made is reported by its own parse, which fails naming why.
      continue;
    }
    const projects = new Set(projectsOf(index));
    const named: SummaryElsewhere[] = [];
    for (const entry of index.entries) {
      if (entry.place !== 'streams/main' || entry.id === undefined) continue;
      for (const { summary, projects: holders } of byLeaf.get(entry.id) ?? []) if (summary.session !== session && holders.some((project) => projects.has(project))) named.push(summary);
    }
    if (named.length > 0) found.set(session, named);
  }
  return found;
}
