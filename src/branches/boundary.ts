// Where an explicit branch may start: only at a stable event boundary.
//
// The rules are those of research/conversation-trees.md §3.2, each with the
// failure it prevents. A boundary B is the record the branch's first new
// record would hang from:
//   exists             B is a record of the conversation
//   ancestry           from B, parents reach a root: no cycle, no missing parent
//                      (a reset is crossed by its explicit pointer only)
//   main_stream        B is in the main stream; forking a child forks the child
//   complete_call      B is the last fragment of its provider call, never a
//                      partial message
//   no_pending_tool    every tool use on the path to B has its result by B: the
//                      provider rejects an unanswered tool use
//   outside_compaction B is not a reset, nor between a reset and its summary
//   conversational     B is part of the conversation, not bookkeeping
// A rejection names the rule that failed and the nearest valid boundary above
// B, so a person can fork there instead.

import type { IndexEntry } from '../index/session-index.ts';
import { ancestry, isPrompt, type Tree } from './tree.ts';
import { callKey } from '../assembly/record-keys.ts';

export type BoundaryRule = 'exists' | 'ancestry' | 'main_stream' | 'complete_call' | 'no_pending_tool' | 'outside_compaction' | 'conversational';

/**
 * turn         B is the record a person's prompt hangs from: a rewind point
 * run_end      B ends a provider call with no tool use: a finished answer
 * tool_closed  B closes the last open tool use: valid, but only when asked
 * root         the branch starts before the first record
 * tip          B is a leaf: the branch goes on from the end of a path
 */
export type BoundaryKind = 'turn' | 'run_end' | 'tool_closed' | 'root' | 'tip';

export type BoundaryCheck =
  | { readonly valid: true; readonly boundary: IndexEntry | undefined; readonly kind: BoundaryKind; readonly path: IndexEntry[] }
  | { readonly valid: false; readonly rule: BoundaryRule; readonly why: string; readonly nearest?: { readonly id: string; readonly kind: BoundaryKind } };

const isBookkeeping = (record: IndexEntry): boolean => ['structural', 'injected', 'notice', 'turn_duration', 'error', 'command'].some((flag) => record.flags.includes(flag as IndexEntry['flags'][number]));

export function checkBoundary(tree: Tree, allRecords: readonly IndexEntry[], event: string, options: { allowToolClosed?: boolean } = {}): BoundaryCheck {
  if (event === 'root') return { valid: true, boundary: undefined, kind: 'root', path: [] };
  const record = tree.byId.get(event);
  if (!record) {
    const elsewhere = allRecords.find((entry) => entry.id === event);
    if (elsewhere) return reject(tree, 'main_stream', `${event} is in ${elsewhere.place}, a child stream; fork the parent conversation at the call that started it instead`, undefined, options);
    return { valid: false, rule: 'exists', why: `no record ${event} in this conversation` };
  }
  const path = ancestry(tree, record);
  if (typeof path === 'string') return { valid: false, rule: 'ancestry', why: path };
  const failed = firstFailure(tree, record, path, options);
  if (failed) return reject(tree, failed.rule, failed.why, record, options);
  return { valid: true, boundary: record, kind: kindOf(tree, record, path, options)!, path };
}

function firstFailure(tree: Tree, record: IndexEntry, path: IndexEntry[], options: { allowToolClosed?: boolean }): { rule: BoundaryRule; why: string } | undefined {
  if (record.flags.includes('sidechain')) return { rule: 'main_stream', why: `${record.id} was written by a child agent` };
  const call = callKey(record);
  if (call !== undefined) {
    const later = tree.fragments.get(call)!.find((other) => tree.position.get(other)! > tree.position.get(record)!);
    if (later) return { rule: 'complete_call', why: `${record.id} is not the last fragment of provider call ${call}; ${later.id} comes after it` };
  }
  const pending = pendingTools(tree, path);
  if (pending.length > 0) return { rule: 'no_pending_tool', why: `tool use${pending.length === 1 ? '' : 's'} ${pending.join(', ')} ha${pending.length === 1 ? 's' : 've'} no result by ${record.id}` };
  if (record.flags.includes('context_reset')) return { rule: 'outside_compaction', why: `${record.id} is a context reset; fork at its summary or before it` };
  const reset = path.findLast((entry) => entry.flags.includes('context_reset'));
  if (reset && !path.slice(path.indexOf(reset)).some((entry) => entry.flags.includes('reset_summary'))) return { rule: 'outside_compaction', why: `${record.id} is between the reset ${reset.id} and its summary` };
  if (isBookkeeping(record)) return { rule: 'conversational', why: `${record.id} is bookkeeping, not part of the conversation` };
  if (!kindOf(tree, record, path, options)) {
    return record.results.length > 0
      ? { rule: 'no_pending_tool', why: `${record.id} closes a tool use inside a run; pass --allow-tool-closed to fork there` }
      : { rule: 'conversational', why: `${record.id} is inside a turn, between a prompt and the end of its run` };
  }
  return undefined;
}

// Tool uses on the path whose result is not by the boundary. A result that
// hangs off a path record beside it (a parallel sibling) counts.
function pendingTools(tree: Tree, path: IndexEntry[]): string[] {
  const on = new Set(path);
  const boundary = path[path.length - 1]!;
  const used = path.flatMap((entry) => entry.calls.map((call) => call.id));
  if (used.length === 0) return [];
  const answered = new Set<string>();
  for (const entry of path) for (const result of entry.results) answered.add(result.of);
  for (const entry of path) {
    for (const child of tree.children.get(entry) ?? []) {
      if (on.has(child) || tree.position.get(child)! > tree.position.get(boundary)!) continue;
      for (const result of child.results) answered.add(result.of);
    }
  }
  return used.filter((id) => !answered.has(id));
}

function kindOf(tree: Tree, record: IndexEntry, path: IndexEntry[], options: { allowToolClosed?: boolean }): BoundaryKind | undefined {
  const children = (tree.children.get(record) ?? []).filter((child) => !isBookkeeping(child));
  if (children.length === 0) return 'tip';
  if (children.some(isPrompt)) return 'turn';
  const call = callKey(record);
  if (call !== undefined && record.flags.includes('finished') && tree.fragments.get(call)!.every((entry) => entry.calls.length === 0)) return 'run_end';
  if (record.results.length > 0 && options.allowToolClosed && pendingTools(tree, path).length === 0) return 'tool_closed';
  return undefined;
}

// The nearest valid boundary above a rejected one, walking up its parents.
function reject(tree: Tree, rule: BoundaryRule, why: string, record: IndexEntry | undefined, options: { allowToolClosed?: boolean }): BoundaryCheck {
  const path = record ? ancestry(tree, record) : undefined;
  if (record && typeof path !== 'string' && path) {
    for (let index = path.length - 2; index >= 0; index--) {
      const candidate = path[index]!;
      const up = path.slice(0, index + 1);
      if (!firstFailure(tree, candidate, up, options)) return { valid: false, rule, why, nearest: { id: candidate.id!, kind: kindOf(tree, candidate, up, options)! } };
    }
    return { valid: false, rule, why, nearest: { id: 'root', kind: 'root' } };
  }
  return { valid: false, rule, why };
}

/** Tools whose effects live outside the conversation: forking does not undo them. */
export function sideEffectOf(name: string): 'shell' | 'file' | 'network' | 'mcp' | 'child_agent' | undefined {
  if (name.startsWith('mcp__')) return 'mcp';
  if (['Bash', 'PowerShell', 'BashOutput', 'KillShell', 'KillBash'].includes(name)) return 'shell';
  if (['Write', 'Edit', 'MultiEdit', 'NotebookEdit'].includes(name)) return 'file';
  if (['WebFetch', 'WebSearch'].includes(name)) return 'network';
  if (['Agent', 'Task', 'Skill', 'Workflow'].includes(name)) return 'child_agent';
  return undefined;
}
