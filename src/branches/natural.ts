// Natural branches: where a person went back (a rewind, or an edited prompt)
// and the conversation took a second path.
//
// The record tree of the main stream has many nodes with two or more
// children, and most of them are not branches. Each such node is classified
// by a ladder (research/conversation-trees.md §4, and claude-code-log's
// dag.py, which it improves on by keeping every non-branch shape named):
//
//   structural       the extra children are bookkeeping with no conversation
//                    below them: progress, attachments, hook summaries
//   parallel_tools   the parent is a provider call whose children are its own
//                    next fragments and results answering its own tool uses
//                    (both on-disk layouts), or a continuation beside a result
//                    that came late
//   retry            a provider error beside the reply that followed it
//   compaction_replay  every child carries one timestamp: a re-written block
//   local_commands   the children are local commands the person ran, each hung
//                    from the same record; they do not continue the conversation
//   branch           at least one child path starts with a person's prompt
//   unclassified     two conversational paths, none starting with a prompt;
//                    listed with its evidence, never published as a branch
//
// Two roots that both start with a prompt are a rewind to the first prompt.
// A compaction re-roots the file; the boundary's explicit pointer to the
// record before it is followed, so a rewind after a compaction is seen. A
// boundary whose pointer names a record that is not on disk stays a root of
// its own, and is never read as a rewind (assembly records it as unresolved).

import type { IndexEntry } from '../index/session-index.ts';
import { isPrompt, treeOf } from './tree.ts';
import { callKey } from '../assembly/record-keys.ts';

export type ForkKind = 'structural' | 'parallel_tools' | 'retry' | 'compaction_replay' | 'local_commands' | 'branch' | 'unclassified';

export interface Fork {
  /** The record with several children; undefined for several roots. */
  readonly at: IndexEntry | undefined;
  readonly kind: ForkKind;
  readonly children: IndexEntry[];
}

export interface Branch {
  /** Stable: from the fork point and the first record of the path, never from position. */
  readonly name: string;
  readonly active: boolean;
  /** The record the branch leaves from; undefined for a rewind to the first prompt. */
  readonly forkPoint: IndexEntry | undefined;
  readonly first: IndexEntry;
  readonly tip: IndexEntry;
  /** The branch's own path, from its first record after the fork (or the root) to its tip. */
  readonly path: IndexEntry[];
  /** Prompts typed on that path. */
  readonly turns: number;
  readonly summary: string;
}

export interface BranchAnalysis {
  readonly forks: Fork[];
  readonly branches: Branch[];
  /** The records of the active path, root to leaf. */
  readonly activePath: IndexEntry[];
  /** How the active leaf was chosen. */
  readonly activeBy: 'leaf_pointer' | 'newest_leaf' | 'empty';
}

const isConversational = (record: IndexEntry): boolean => !record.flags.includes('structural') && !record.flags.includes('injected') && !record.flags.includes('notice') && !record.flags.includes('turn_duration');

export function analyseBranches(records: readonly IndexEntry[], summaries: ReadonlyMap<string, string> = new Map()): BranchAnalysis {
  const { records: tree, position, children, fragments, byId, parentOf } = treeOf(records.filter((record) => !record.flags.includes('sidechain')));
  const roots = tree.filter((record) => parentOf(record) === undefined);

  // Whether any conversation lies at or below a record: structural side
  // branches are stitched away. Iterative, since real chains are deep.
  const conversation = new Map<IndexEntry, boolean>();
  for (let index = tree.length - 1; index >= 0; index--) {
    const record = tree[index]!;
    conversation.set(record, isConversational(record) || (children.get(record) ?? []).some((child) => conversation.get(child) === true));
  }
  // The first conversational record down a child's chain, skipping bookkeeping.
  const startOf = (record: IndexEntry): IndexEntry | undefined => {
    for (let at: IndexEntry | undefined = record; at; at = (children.get(at) ?? []).find((child) => conversation.get(child))) if (isConversational(at)) return at;
    return undefined;
  };

  const forks: Fork[] = [];
  const classify = (at: IndexEntry | undefined, all: IndexEntry[]): ForkKind => {
    const live = all.filter((child) => conversation.get(child));
    if (live.length <= 1) return 'structural';
    const starts = live.map(startOf).filter((start): start is IndexEntry => start !== undefined);
    const call = at !== undefined ? callKey(at) : undefined;
    if (call !== undefined) {
      const toolIds = new Set(fragments.get(call)!.flatMap((record) => record.calls.map((call) => call.id)));
      const answersOwn = (child: IndexEntry): boolean => child.results.length > 0 && child.results.every((result) => toolIds.has(result.of)) && !isPrompt(child);
      const continues = (child: IndexEntry): boolean => child.from === 'agent' && !isPrompt(child);
      // Judged on where each child's conversation starts: newer versions thread
      // the next parallel call through progress records first.
      if (starts.length === live.length && starts.every((start) => answersOwn(start) || continues(start)) && starts.some(answersOwn)) return 'parallel_tools';
    }
    if (live.some((child) => child.flags.includes('error'))) return 'retry';
    // A local command hangs beside the conversation; it does not continue it.
    if (starts.length > 0 && starts.filter((start) => !start.flags.includes('command')).length <= 1) return 'local_commands';
    if (live.length >= 2 && live.every((child) => child.ts !== undefined && child.ts === live[0]!.ts)) return 'compaction_replay';
    // Several roots are a rewind only when at least two of them begin with a prompt.
    if (starts.length >= 2 && starts.filter(isPrompt).length >= (at === undefined ? 2 : 1)) return 'branch';
    return 'unclassified';
  };
  for (const [at, list] of children) if (list.length >= 2) forks.push({ at, kind: classify(at, list), children: list });
  const conversationalRoots = roots.filter((root) => conversation.get(root) && !root.flags.includes('context_reset'));
  if (conversationalRoots.length >= 2) forks.push({ at: undefined, kind: classify(undefined, conversationalRoots), children: conversationalRoots });
  forks.sort((a, b) => (a.at ? position.get(a.at)! : -1) - (b.at ? position.get(b.at)! : -1));

  // The active leaf: the latest pointer the runtime wrote that resolves, else
  // the newest leaf in line order.
  let activeLeaf: IndexEntry | undefined;
  let activeBy: BranchAnalysis['activeBy'] = 'empty';
  for (const record of records) {
    if (record.leaf !== undefined && byId.has(record.leaf)) {
      activeLeaf = byId.get(record.leaf);
      activeBy = 'leaf_pointer';
    }
  }
  if (!activeLeaf) {
    for (let index = tree.length - 1; index >= 0; index--) {
      const record = tree[index]!;
      if (isConversational(record) && !(children.get(record) ?? []).some((child) => conversation.get(child))) {
        activeLeaf = record;
        activeBy = 'newest_leaf';
        break;
      }
    }
  }
  // Tolerant on purpose, unlike a fork's fail-closed ancestry: a natural
  // branch is shown as far back as its parents reach.
  const pathTo = (leaf: IndexEntry): IndexEntry[] => {
    const path: IndexEntry[] = [];
    const seen = new Set<IndexEntry>();
    for (let at: IndexEntry | undefined = leaf; at && !seen.has(at); at = parentOf(at)) {
      seen.add(at);
      path.push(at);
    }
    return path.reverse();
  };
  const activePath = activeLeaf ? pathTo(activeLeaf) : [];
  const onActive = new Set(activePath);

  // Each child of a real fork that is off the active path is a branch: its
  // tip is the newest conversational leaf below it.
  const tipOf = (start: IndexEntry): IndexEntry => {
    let tip = start;
    const stack = [start];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (isConversational(at) && position.get(at)! > position.get(tip)!) tip = at;
      stack.push(...(children.get(at) ?? []).filter((child) => conversation.get(child)));
    }
    return tip;
  };
  const branches: Branch[] = [];
  const turnsOf = (path: IndexEntry[]): number => path.filter(isPrompt).length;
  if (activeLeaf) {
    const forkOfActive = forks.filter((fork) => fork.kind === 'branch' && fork.children.some((child) => onActive.has(child)));
    const activeFirst = forkOfActive.at(-1)?.children.find((child) => onActive.has(child)) ?? activePath[0]!;
    const own = activePath.slice(activePath.indexOf(activeFirst));
    branches.push(describe(true, forkOfActive.at(-1)?.at, activeFirst, activeLeaf, own, turnsOf(own), summaries));
  }
  for (const fork of forks) {
    if (fork.kind !== 'branch') continue;
    for (const child of fork.children) {
      if (onActive.has(child) || !conversation.get(child)) continue;
      const tip = tipOf(child);
      const path = pathTo(tip);
      const own = path.slice(path.indexOf(child));
      branches.push(describe(false, fork.at, child, tip, own, turnsOf(own), summaries));
    }
  }
  return { forks, branches, activePath, activeBy };
}

function describe(active: boolean, forkPoint: IndexEntry | undefined, first: IndexEntry, tip: IndexEntry, path: IndexEntry[], turns: number, summaries: ReadonlyMap<string, string>): Branch {
  const name = active ? 'active' : `from-${short(forkPoint?.id ?? 'root')}-${short(first.id!)}`;
  return { name, active, forkPoint, first, tip, path, turns, summary: summaries.get(name) ?? `[${turns} turn${turns === 1 ? '' : 's'}, unsummarized]` };
}

// Letters and digits only: a record id is the transcript's, and a branch's
// name must be a plain file name (explicit.ts, isBranchName).
function short(id: string): string {
  return id.replace(/[^A-Za-z0-9]/g, '').slice(0, 8);
}
