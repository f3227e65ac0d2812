// Stage 4: join tools. One step per tool use, with its result.
//
// The join is by tool-use id within the stream's file: once duplicates are
// removed, each id maps to exactly one result (seed design-notes/02 §1.4). A
// use whose result never came has its result `unavailable`, not a guess, and
// a result that names no use in its stream is kept as unresolved. Failure is
// what the runtime said: absent is not success.

import type { IndexEntry } from '../index/session-index.ts';
import type { ProviderCall } from './provider-calls.ts';

export interface ToolStep {
  /** The tool-use id. */
  readonly id: string;
  readonly name: string;
  readonly stream: string;
  /** The provider call that asked for it. */
  readonly call: string;
  readonly use: IndexEntry;
  readonly result: IndexEntry | 'unavailable';
  /** true or false only when the runtime said so. */
  readonly failed?: boolean;
}

export interface ToolJoin {
  readonly steps: ToolStep[];
  /** Results that answer no tool use of their stream. */
  readonly orphanResults: { readonly of: string; readonly record: IndexEntry }[];
}

export function joinTools(stream: string, records: readonly IndexEntry[], calls: readonly ProviderCall[]): ToolJoin {
  const results = new Map<string, { record: IndexEntry; failed?: boolean }>();
  for (const record of records) {
    for (const result of record.results) {
      // After duplicate removal a second result for one id would be new
      // evidence of something unexpected; the first is kept and the rest
      // reported as orphans rather than silently overwritten.
      if (!results.has(result.of)) results.set(result.of, { record, failed: result.failed });
    }
  }
  const steps: ToolStep[] = [];
  const used = new Set<string>();
  for (const call of calls) {
    for (const fragment of call.fragments) {
      for (const use of fragment.calls) {
        const result = results.get(use.id);
        used.add(use.id);
        steps.push({ id: use.id, name: use.name, stream, call: call.id, use: fragment, result: result?.record ?? 'unavailable', failed: result?.failed });
      }
    }
  }
  const orphanResults: { of: string; record: IndexEntry }[] = [];
  for (const record of records) {
    for (const result of record.results) {
      if (!used.has(result.of) || results.get(result.of)!.record !== record) orphanResults.push({ of: result.of, record });
    }
  }
  return { steps, orphanResults };
}
