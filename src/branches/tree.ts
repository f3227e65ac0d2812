// The record tree of a main stream, as both branch analyses read it: every
// record with an id, hung from its parent, a context reset hung from the
// record its explicit pointer names (the reset's own parent is empty), the
// children of each record in line order, and the fragments of each provider
// call.

import type { IndexEntry } from '../index/session-index.ts';
import { callKey } from '../assembly/record-keys.ts';

export interface Tree {
  readonly records: IndexEntry[];
  readonly byId: Map<string, IndexEntry>;
  readonly children: Map<IndexEntry, IndexEntry[]>;
  readonly position: Map<IndexEntry, number>;
  /** The fragments of each provider call, in line order. */
  readonly fragments: Map<string, IndexEntry[]>;
  parentOf(record: IndexEntry): IndexEntry | undefined;
}

export function treeOf(records: readonly IndexEntry[]): Tree {
  const list = records.filter((record) => record.id !== undefined);
  const byId = new Map(list.map((record) => [record.id!, record]));
  const parentOf = (record: IndexEntry): IndexEntry | undefined =>
    record.parent !== undefined ? byId.get(record.parent) : record.flags.includes('context_reset') && record.continues !== undefined ? byId.get(record.continues) : undefined;
  // Each list grows in place rather than being made again for every record
  // added.
  const children = new Map<IndexEntry, IndexEntry[]>();
  const fragments = new Map<string, IndexEntry[]>();
  const position = new Map<IndexEntry, number>();
  list.forEach((record, index) => {
    position.set(record, index);
    const parent = parentOf(record);
    if (parent) appendTo(children, parent, record);
    const call = callKey(record);
    if (call !== undefined) appendTo(fragments, call, record);
  });
  return { records: list, byId, children, position, fragments, parentOf };
}

function appendTo<Key>(lists: Map<Key, IndexEntry[]>, key: Key, record: IndexEntry): void {
  const list = lists.get(key);
  if (list) list.push(record);
  else lists.set(key, [record]);
}

/** A person's prompt: typed input that is not queued steering, injected text or a local command. */
export const isPrompt = (record: IndexEntry): boolean =>
  (record.flags.includes('external_input') || record.flags.includes('apparent_input')) && !record.flags.includes('queued') && !record.flags.includes('injected') && !record.flags.includes('command');
/** Root to B, or why not: fails closed on a cycle or a missing parent. */
export function ancestry(tree: Tree, record: IndexEntry): IndexEntry[] | string {
  const path: IndexEntry[] = [];
  const seen = new Set<IndexEntry>();
  for (let at: IndexEntry | undefined = record; at; ) {
    if (seen.has(at)) return `the parents of ${record.id} run in a cycle through ${at.id}`;
    seen.add(at);
    path.push(at);
    const parent = tree.parentOf(at);
    const named = at.parent ?? (at.flags.includes('context_reset') ? at.continues : undefined);
    if (!parent && named !== undefined) return `${at.id} names a parent ${named} that is not in the evidence`;
    at = parent;
  }
  return path.reverse();
}
