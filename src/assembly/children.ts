// Stage 5: join child agents to the calls that started them.
//
// No single field spans the ways a child starts, so each is read where it
// lives (seed design-notes/02 §1.5), most work first:
//   journal      a workflow run's journal names each child it started; the run
//                is the one the launching call's result names (most runs)
//   result       the parent's result of an agent call names the child
//   sidecar      a direct child's sidecar names the call; a nested child's
//                names only the agent that started it
//   notification a completion notice names both the call and the child
//   prompt       a child written into its parent's file (inline) is named by
//                nothing: its first text is the text one call handed over, a
//                strong inference when one call and one child share it. When
//                several share it, they are paired in line order (each call
//                starts one child, in the order it was made) as a weak
//                inference; when their numbers differ, every pairing is kept
// Several candidates for one child are all kept, as exact_ambiguous: the
// assembler never chooses. A child nothing names is an orphan, recorded, not
// guessed. Completion notices name the call they complete; that call may sit
// in another stream of the session, so it is looked up across all of them.

import type { IndexEntry } from '../index/session-index.ts';
import type { CorrelationQuality } from '../model/structure.ts';
import type { EvidenceRef } from '../model/structure.ts';
import type { Partition } from './streams.ts';
import type { ToolStep } from './tools.ts';

export interface Spawn {
  readonly child: string;
  /** The tool step that started it, or, for a nested child named only by its sidecar, the parent stream. */
  readonly from: { readonly type: 'tool'; readonly step: ToolStep } | { readonly type: 'stream'; readonly stream: string };
  readonly via: 'journal' | 'result' | 'sidecar' | 'notification' | 'prompt';
  readonly quality: CorrelationQuality;
  readonly evidence: EvidenceRef[];
}

export interface Report {
  readonly notice: IndexEntry;
  readonly stream: string;
  readonly step: ToolStep | undefined;
  readonly quality: CorrelationQuality;
}

export interface ChildJoin {
  readonly spawns: Spawn[];
  readonly orphans: string[];
  /** Children a call or a journal names whose transcript is not here, with the naming record. */
  readonly missing: { readonly child: string; readonly evidence: IndexEntry }[];
  readonly reports: Report[];
}

const ref = (entry: IndexEntry): EvidenceRef => ({ seq: entry.seq, row: entry.row });

export function joinChildren(partition: Partition, steps: readonly ToolStep[]): ChildJoin {
  const stepsByTool = new Map<string, ToolStep[]>();
  const stepsByRun = new Map<string, ToolStep[]>();
  const stepsByChild = new Map<string, ToolStep[]>();
  for (const step of steps) {
    push(stepsByTool, step.id, step);
    if (step.result === 'unavailable') continue;
    if (step.result.batch !== undefined) push(stepsByRun, step.result.batch, step);
    if (step.result.child !== undefined) push(stepsByChild, step.result.child, step);
  }
  const journalNames = new Map<string, IndexEntry[]>();
  for (const [run, records] of partition.runs) {
    for (const record of records) {
      if (record.kind === 'journal' && record.child !== undefined) push(journalNames, record.child, { ...record, batch: record.batch ?? run });
    }
  }

  const noticesByChild = new Map<string, IndexEntry[]>();
  for (const stream of partition.streams.values()) {
    for (const record of stream.records) if (isNotice(record) && record.child !== undefined) push(noticesByChild, record.child, record);
  }

  const spawns: Spawn[] = [];
  const orphans: string[] = [];
  const byPrompt = promptSpawns(partition, steps);
  for (const stream of partition.streams.values()) {
    if (stream.id === 'main') continue;
    if (stream.inline) {
      const found = byPrompt.get(stream.id) ?? [];
      if (found.length === 0) orphans.push(stream.id);
      spawns.push(...found);
      continue;
    }
    const candidates: Omit<Spawn, 'quality'>[] = [];
    for (const step of stepsByChild.get(stream.id) ?? []) candidates.push({ child: stream.id, from: { type: 'tool', step }, via: 'result', evidence: [ref(step.result as IndexEntry)] });
    for (const record of journalNames.get(stream.id) ?? []) {
      for (const step of stepsByRun.get(record.batch!) ?? []) candidates.push({ child: stream.id, from: { type: 'tool', step }, via: 'journal', evidence: [ref(record), ref(step.result as IndexEntry)] });
    }
    for (const notice of noticesByChild.get(stream.id) ?? []) {
      for (const step of stepsByTool.get(notice.tool!) ?? []) candidates.push({ child: stream.id, from: { type: 'tool', step }, via: 'notification', evidence: [ref(notice)] });
    }
    for (const sidecar of stream.sidecar) {
      for (const step of sidecar.tool !== undefined ? stepsByTool.get(sidecar.tool) ?? [] : []) candidates.push({ child: stream.id, from: { type: 'tool', step }, via: 'sidecar', evidence: [ref(sidecar)] });
    }
    // The same call found by two routes is one start, confirmed twice.
    const byFrom = new Map<string, Omit<Spawn, 'quality'>>();
    for (const candidate of candidates) {
      const key = candidate.from.type === 'tool' ? `tool:${candidate.from.step.stream}/${candidate.from.step.id}` : `stream:${candidate.from.stream}`;
      const known = byFrom.get(key);
      byFrom.set(key, known ? { ...known, evidence: [...known.evidence, ...candidate.evidence] } : candidate);
    }
    if (byFrom.size === 0) {
      // A nested child's sidecar names the agent that started it and nothing
      // more: an exact pointer to a stream, not to a call.
      const parent = stream.sidecar.find((record) => record.startedBy !== undefined);
      if (parent && partition.streams.has(parent.startedBy!)) {
        spawns.push({ child: stream.id, from: { type: 'stream', stream: parent.startedBy! }, via: 'sidecar', quality: 'exact_unique', evidence: [ref(parent)] });
      } else {
        orphans.push(stream.id);
      }
      continue;
    }
    const quality: CorrelationQuality = byFrom.size === 1 ? 'exact_unique' : 'exact_ambiguous';
    for (const candidate of byFrom.values()) spawns.push({ ...candidate, quality });
  }

  const missing: { child: string; evidence: IndexEntry }[] = [];
  for (const [child, records] of journalNames) if (!partition.streams.has(child)) missing.push({ child, evidence: records[0]! });
  for (const [child, named] of stepsByChild) if (!partition.streams.has(child) && !journalNames.has(child)) missing.push({ child, evidence: named[0]!.result as IndexEntry });

  const reports: Report[] = [];
  for (const stream of partition.streams.values()) {
    for (const record of stream.records) {
      if (!isNotice(record)) continue;
      const found = stepsByTool.get(record.tool!) ?? [];
      reports.push({ notice: record, stream: stream.id, step: found[0], quality: found.length === 1 ? 'exact_unique' : found.length === 0 ? 'unresolved' : 'exact_ambiguous' });
    }
  }
  return { spawns, orphans, missing, reports };
}

// The inline children started by a call that handed over their first text.
function promptSpawns(partition: Partition, steps: readonly ToolStep[]): Map<string, Spawn[]> {
  const stepsByText = new Map<string, ToolStep[]>();
  for (const step of steps) {
    for (const handed of step.use.calls.find((call) => call.id === step.id)?.handed ?? []) push(stepsByText, handed, step);
  }
  const childrenByText = new Map<string, { stream: string; first: IndexEntry }[]>();
  for (const stream of partition.streams.values()) {
    const first = stream.records[0];
    if (stream.inline && first?.opening !== undefined) push(childrenByText, first.opening, { stream: stream.id, first });
  }
  const spawns = new Map<string, Spawn[]>();
  for (const [text, children] of childrenByText) {
    const callers = stepsByText.get(text) ?? [];
    const spawn = (child: { stream: string; first: IndexEntry }, step: ToolStep, quality: CorrelationQuality): void =>
      push(spawns, child.stream, { child: child.stream, from: { type: 'tool', step }, via: 'prompt', quality, evidence: [ref(step.use), ref(child.first)] });
    if (callers.length === children.length) {
      children.forEach((child, index) => spawn(child, callers[index]!, children.length === 1 ? 'strong_inference' : 'weak_inference'));
    } else {
      for (const child of children) for (const step of callers) spawn(child, step, 'weak_inference');
    }
  }
  return spawns;
}

/** A completion notice: the runtime's own text in the parent, naming the call whose work finished. */
export function isNotice(record: IndexEntry): boolean {
  if (record.tool === undefined || record.results.length > 0 || record.flags.includes('structural')) return false;
  return record.trigger === 'notification' || (record.from === 'runtime' && record.parts[0] === 'text' && record.call === undefined);
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
