// The export splice: one linear reading of a conversation with its branches
// folded in. The active path is kept whole, and at each fork point on it
// every branch that left from there appears as one stub with its name, its
// length and its summary (caller-given or the deterministic stub), so a
// reader sees that another path exists and where, without it being mixed
// into the active one.

import type { IndexEntry } from '../index/session-index.ts';
import type { BranchAnalysis } from './natural.ts';

export type SplicedItem = { readonly type: 'record'; readonly record: IndexEntry } | { readonly type: 'branch'; readonly name: string; readonly first: IndexEntry; readonly length: number; readonly turns: number; readonly summary: string };

export function spliceForExport(analysis: BranchAnalysis, summaries: ReadonlyMap<string, string> = new Map()): SplicedItem[] {
  const items: SplicedItem[] = [];
  const offPath = analysis.branches.filter((branch) => !branch.active);
  const rootBranches = offPath.filter((branch) => branch.forkPoint === undefined);
  const stub = (branch: (typeof offPath)[number]): SplicedItem => ({ type: 'branch', name: branch.name, first: branch.first, length: branch.path.length, turns: branch.turns, summary: summaries.get(branch.name) ?? branch.summary });
  for (const branch of rootBranches) items.push(stub(branch));
  for (const record of analysis.activePath) {
    items.push({ type: 'record', record });
    for (const branch of offPath) if (branch.forkPoint === record) items.push(stub(branch));
  }
  return items;
}
