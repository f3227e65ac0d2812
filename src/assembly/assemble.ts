// Assembly: one session's index in, its conversation structure out.
//
// The eight stages run in their forced order, each on the output of the one
// before (seed design-notes/02 §1), and then every node, relation and
// unresolved reference is written with an id from stable evidence. The whole
// session is assembled every time, bounded by a landed sequence: the same
// index always gives the same entities, so a round can be derived again
// rather than only trusted. Output is sorted by id, so it is the same bytes
// whatever order maps were filled in.

import type { IndexEntry, SessionIndex } from '../index/session-index.ts';
import type { NodeKind } from '../model/structure.ts';
import type { FlowNode, FlowRelation, FlowUnresolved, Structure } from '../model/structure.ts';
import { isNotice, joinChildren } from './children.ts';
import { removeDuplicates } from './duplicates.ts';
import { cutEpochs, type EpochCut } from './epochs.ts';
import { groupProviderCalls, type ProviderCall } from './provider-calls.ts';
import { evidenceOf, recordKey } from './record-keys.ts';
import { DEFAULT_IDLE_GAP_MS, proposeSegments } from './segments.ts';
import { partitionStreams } from './streams.ts';
import { buildTalks, type TalkBuild } from './talks.ts';
import { joinTools, type ToolStep } from './tools.ts';
import { nameConversation, type SummaryElsewhere } from './conversation-names.ts';

export const PARSER_VERSION = 'sessionizer-assembly/4';

export interface AssembleOptions {
  /** Supplied, never inferred: by default the session id, the adapter's documented mapping. */
  readonly conversation: string;
  /** Only landed files up to this sequence are read. */
  readonly throughSeq: number;
  readonly idleGap?: number;
  /** Summaries in other sessions' files that may name this session's records: a title may come from one (conversation-names.ts). */
  readonly summariesElsewhere?: readonly SummaryElsewhere[];
}

export function policyOf(options: Pick<AssembleOptions, 'idleGap'>): string {
  return `idle_gap_ms=${options.idleGap ?? DEFAULT_IDLE_GAP_MS}`;
}

/**
 * What assembly publishes of a main stream's natural branches. Branch
 * analysis comes after assembly in the pipeline (it reads the tree assembly
 * keeps), so the parse step hands it in: see parse/structure.ts.
 */
export interface NaturalBranches {
  readonly forks: readonly { readonly kind: string }[];
  readonly branches: readonly {
    readonly name: string;
    readonly active: boolean;
    readonly forkPoint: IndexEntry | undefined;
    readonly first: IndexEntry;
    readonly tip: IndexEntry;
    readonly path: readonly IndexEntry[];
    readonly turns: number;
    readonly summary: string;
  }[];
  /** The records of the active path, root to leaf. */
  readonly activePath: readonly IndexEntry[];
  readonly activeBy: string;
}

export function assembleStructure(index: SessionIndex, options: AssembleOptions, analyseBranches: (records: IndexEntry[]) => NaturalBranches): Structure {
  const nodes = new Map<string, FlowNode>();
  const relations = new Map<string, FlowRelation>();
  const unresolved = new Map<string, FlowUnresolved>();
  const node = (value: FlowNode): void => void nodes.set(value.id, value);
  const relation = (value: FlowRelation): void => void relations.set(value.id, value);
  const open = (value: FlowUnresolved): void => void unresolved.set(value.id, value);

  const bounded = index.entries.filter((entry) => entry.seq <= options.throughSeq);
  // Stage 1 and 2: every later stage reads only the canonical records.
  const removal = removeDuplicates(bounded);
  const partition = partitionStreams(removal.canonical);
  const sessionNode = `session/${index.session}`;

  interface StreamWork {
    readonly id: string;
    readonly records: IndexEntry[];
    readonly calls: ProviderCall[];
    readonly steps: ToolStep[];
    readonly epochs: EpochCut;
    readonly talks: TalkBuild;
  }
  const work: StreamWork[] = [];
  const allSteps: ToolStep[] = [];
  let orphanResults = 0;
  for (const stream of [...partition.streams.values()].sort((a, b) => compare(a.id, b.id))) {
    // Stage 3 and 4.
    const calls = groupProviderCalls(stream.id, stream.records);
    const join = joinTools(stream.id, stream.records, calls);
    allSteps.push(...join.steps);
    for (const orphan of join.orphanResults) {
      orphanResults++;
      open({ id: `unresolved/orphan_result/${stream.id}/${recordKey(orphan.record)}/${orphan.of}`, kind: 'orphan_result', ref: orphan.of, state: 'open', evidence: [evidenceOf(orphan.record)] });
    }
    // Stage 6 and 7, per stream.
    const epochs = cutEpochs(stream.id, stream.records);
    const talks = buildTalks(stream.id, stream.records, epochs, stream.id !== 'main');
    work.push({ id: stream.id, records: stream.records, calls, steps: join.steps, epochs, talks });
  }
  // Stage 5 needs every stream's tool steps: a notice can name a call in another file.
  const children = joinChildren(partition, allSteps);
  const startsChild = new Set(children.spawns.flatMap((spawn) => (spawn.from.type === 'tool' ? [`${spawn.from.step.stream}/tool/${spawn.from.step.id}`] : [])));

  let talkCount = 0;
  let runCount = 0;
  let epochCount = 0;
  let callsWithoutStop = 0;
  let callsWithoutId = 0;
  let synthetic = 0;
  let structural = 0;
  for (const stream of work) {
    const streamNode = `stream/${stream.id}`;
    node({ id: streamNode, kind: 'stream', parent: sessionNode, stream: stream.id, attrs: { child: stream.id !== 'main', records: stream.records.length } });
    for (const epoch of stream.epochs.epochs) {
      epochCount++;
      node({ id: epoch.id, kind: 'epoch', parent: streamNode, stream: stream.id, ...(epoch.boundary ? { ref: evidenceOf(epoch.boundary) } : {}) });
      if (!epoch.boundary) continue;
      const previous = stream.epochs.epochs[stream.epochs.epochs.indexOf(epoch) - 1]!;
      relation({ id: `relation/follows/${epoch.id}`, type: 'follows', from: epoch.id, to: previous.id, quality: epoch.continuesFound ? 'exact_unique' : 'unresolved', via: 'continues', evidence: [evidenceOf(epoch.boundary)] });
      if (!epoch.continuesFound) open({ id: `unresolved/epoch_parent/${epoch.id}`, kind: 'epoch_parent', ref: epoch.boundary.continues ?? epoch.id, state: 'terminal', evidence: [evidenceOf(epoch.boundary)] });
    }
    for (const talk of stream.talks.talks) {
      talkCount++;
      node({ id: talk.id, kind: 'talk', parent: talk.epoch.id, stream: stream.id, ...(talk.start ? { ref: evidenceOf(talk.start) } : {}), attrs: { started_by: talk.startedBy } });
    }
    for (const run of stream.talks.runs) {
      runCount++;
      node({ id: run.id, kind: 'run', parent: run.talk.id, stream: stream.id, attrs: run.loop !== undefined ? { loop: run.loop } : { loop: 'unavailable' } });
    }
    const containerOf = (record: IndexEntry): string => stream.talks.placement.get(recordKey(record))?.run.id ?? stream.epochs.epochOf.get(recordKey(record))!.id;

    // Provider calls and what their fragments hold.
    const absorbed = new Set<string>();
    for (const call of stream.calls) {
      const first = call.fragments[0]!;
      if (call.synthetic) {
        synthetic++;
        node({ id: `${stream.id}/call/${call.id}`, kind: 'message.synthetic', parent: containerOf(first), stream: stream.id, ref: evidenceOf(first), refs: call.fragments.map(evidenceOf) });
        for (const fragment of call.fragments) absorbed.add(recordKey(fragment));
        continue;
      }
      if (!call.finished) callsWithoutStop++;
      if (!call.identified) callsWithoutId++;
      const callNode = `${stream.id}/call/${call.id}`;
      node({ id: callNode, kind: 'llm.call', parent: containerOf(first), stream: stream.id, ref: evidenceOf(first), refs: call.fragments.map(evidenceOf), attrs: { fragments: call.fragments.length, ...(call.model !== undefined ? { model: call.model } : {}), usage: call.usage, ...(call.identified ? {} : { provider_id: 'unavailable' }) } });
      for (const fragment of call.fragments) {
        absorbed.add(recordKey(fragment));
        const kind: NodeKind | undefined = fragment.parts.includes('text') ? 'message.assistant' : fragment.parts.includes('reasoning') ? 'thinking' : undefined;
        if (kind) node({ id: `${stream.id}/rec/${recordKey(fragment)}`, kind, parent: callNode, stream: stream.id, ref: evidenceOf(fragment) });
      }
    }
    for (const step of stream.steps) {
      const id = `${stream.id}/tool/${step.id}`;
      const result = step.result === 'unavailable' ? undefined : step.result;
      if (result) absorbed.add(recordKey(result));
      node({
        id,
        kind: startsChild.has(id) ? 'agent.call' : 'tool',
        parent: `${stream.id}/call/${step.call}`,
        stream: stream.id,
        ref: evidenceOf(step.use),
        refs: result ? [evidenceOf(step.use), evidenceOf(result)] : [evidenceOf(step.use)],
        attrs: { name: step.name, result: result ? 'available' : 'unavailable', ...(step.failed !== undefined ? { failed: step.failed } : {}), timing: 'unavailable' },
      });
      if (!result) open({ id: `unresolved/tool_result/${stream.id}/${step.id}`, kind: 'tool_result', ref: id, state: 'open', evidence: [evidenceOf(step.use)] });
      if (result?.flags.includes('launch_ack')) node({ id: `${stream.id}/ack/${step.id}`, kind: 'agent.launch_ack', parent: containerOf(result), stream: stream.id, ref: evidenceOf(result) });
    }
    // Every other conversational record is one step of its own kind.
    for (const record of stream.records) {
      if (record.flags.includes('structural')) {
        structural++;
        continue;
      }
      if (absorbed.has(recordKey(record)) || record.results.length > 0) continue;
      // A child's delegated prompt is input from outside that agent.
      const kind = stream.id !== 'main' && stream.talks.talks[0]?.start === record ? 'message.external' : stepKind(record);
      node({ id: `${stream.id}/rec/${recordKey(record)}`, kind, parent: kind === 'epoch.boundary' ? stream.epochs.epochOf.get(recordKey(record))!.id : containerOf(record), stream: stream.id, ref: evidenceOf(record) });
      if (record.flags.includes('reset_summary') && record.parent !== undefined) {
        const boundary = stream.records.find((candidate) => candidate.id === record.parent && candidate.flags.includes('context_reset'));
        if (boundary) relation({ id: `relation/summarizes/${stream.id}/${recordKey(record)}`, type: 'summarizes', from: `${stream.id}/rec/${recordKey(record)}`, to: `${stream.id}/rec/${recordKey(boundary)}`, quality: 'exact_unique', via: 'parent', evidence: [evidenceOf(record), evidenceOf(boundary)] });
      }
    }
  }

  // Stage 5's joins, now that the nodes they connect exist.
  for (const spawn of children.spawns) {
    const from = spawn.from.type === 'tool' ? `${spawn.from.step.stream}/tool/${spawn.from.step.id}` : `stream/${spawn.from.stream}`;
    relation({ id: `relation/starts/${from}/${spawn.child}`, type: 'starts', from, to: `stream/${spawn.child}`, quality: spawn.quality, via: spawn.via, evidence: spawn.evidence });
  }
  for (const orphan of children.orphans) open({ id: `unresolved/orphan_stream/${orphan}`, kind: 'orphan_stream', ref: `stream/${orphan}`, state: 'terminal', evidence: [] });
  for (const missing of children.missing) open({ id: `unresolved/child_stream/${missing.child}`, kind: 'child_stream', ref: missing.child, state: 'open', evidence: [evidenceOf(missing.evidence)] });
  for (const report of children.reports) {
    const from = `${report.stream}/rec/${recordKey(report.notice)}`;
    if (report.step) relation({ id: `relation/reports/${from}`, type: 'reports', from, to: `${report.step.stream}/tool/${report.step.id}`, quality: report.quality, via: 'tool', evidence: [evidenceOf(report.notice)] });
    else open({ id: `unresolved/notification_call/${from}`, kind: 'notification_call', ref: report.notice.tool!, state: 'open', evidence: [evidenceOf(report.notice)] });
  }

  // Stage 8 on the main stream's timeline: a segment is a time window, so the
  // talks join it by relation, never as children.
  const main = work.find((stream) => stream.id === 'main');
  let segmentCount = 0;
  if (main) {
    const { segments, segmentOf } = proposeSegments(main.records, main.steps, options.idleGap);
    for (const segment of segments) {
      segmentCount++;
      node({ id: segment.id, kind: 'segment', parent: sessionNode, ref: evidenceOf(segment.first), attrs: { state: segment.state, gates: segment.gates, from_ts: segment.first.ts, to_ts: segment.last.ts, ...(segment.gapAfter !== undefined ? { gap_after_ms: segment.gapAfter } : {}) } });
    }
    for (const talk of main.talks.talks) {
      const segment = talk.start ? segmentOf.get(recordKey(talk.start)) : undefined;
      if (segment) relation({ id: `relation/in_segment/${talk.id}`, type: 'in_segment', from: talk.id, to: segment.id, quality: 'exact_unique', via: 'time', evidence: [evidenceOf(talk.start!)] });
    }
  }

  // Natural branches of the main stream: published as nodes, so the fold of
  // the chain gives the same branches as a fresh assembly.
  const forkCounts: Record<string, number> = {};
  let offPath = 0;
  const analysis = main ? analyseBranches(main.records) : undefined;
  if (analysis) {
    for (const fork of analysis.forks) forkCounts[`forks_${fork.kind}`] = (forkCounts[`forks_${fork.kind}`] ?? 0) + 1;
    for (const branch of analysis.branches) {
      if (!branch.active) offPath++;
      node({
        id: `branch/${branch.name}`,
        kind: 'branch',
        parent: sessionNode,
        stream: 'main',
        ref: evidenceOf(branch.first),
        refs: [evidenceOf(branch.first), evidenceOf(branch.tip)],
        attrs: {
          name: branch.name,
          active: branch.active,
          origin: 'natural',
          fork_point: branch.forkPoint?.id ?? 'root',
          first: branch.first.id,
          tip: branch.tip.id,
          length: branch.path.length,
          turns: branch.turns,
          summary: branch.summary,
          ...(branch.active ? { chosen_by: analysis.activeBy } : {}),
        },
      });
    }
  }

  const joined = allSteps.filter((step) => step.result !== 'unavailable').length;
  const notified = children.reports.filter((report) => report.step).length;
  const counts = {
      records: bounded.length,
      duplicates: removal.copies.length,
      structural_records: structural,
      streams: work.length,
      child_streams: work.length - (main ? 1 : 0),
      child_streams_started: work.length - (main ? 1 : 0) - children.orphans.length,
      epochs: epochCount,
      talks: talkCount,
      runs: runCount,
      provider_calls: work.reduce((sum, stream) => sum + stream.calls.length, 0),
      provider_calls_without_stop: callsWithoutStop,
      provider_calls_without_id: callsWithoutId,
      synthetic_messages: synthetic,
      tool_uses: allSteps.length,
      tool_uses_joined: joined,
      orphan_results: orphanResults,
      notifications: children.reports.length,
      notifications_joined: notified,
      segments: segmentCount,
      branches: offPath,
      ...forkCounts,
  };
  // The counts travel on the session node, so the fold of the chain carries
  // every denominator along with the structure it describes.
  const names = nameConversation(main?.records ?? [], analysis?.activePath ?? [], work.flatMap((stream) => (stream === main ? [] : stream.records)), work.flatMap((stream) => stream.calls), options.summariesElsewhere);
  node({ id: sessionNode, kind: 'session', attrs: { session: index.session, conversation: options.conversation, ...names, counts } });
  return {
    nodes: sortById([...nodes.values()]),
    relations: sortById([...relations.values()]),
    unresolved: sortById([...unresolved.values()]),
    counts,
  };
}

function stepKind(record: IndexEntry): NodeKind {
  const flags = record.flags;
  if (flags.includes('context_reset')) return 'epoch.boundary';
  if (flags.includes('reset_summary')) return 'epoch.summary';
  if (flags.includes('error')) return 'error.api';
  if (flags.includes('turn_duration')) return 'turn.duration';
  if (flags.includes('interrupt')) return 'control.interrupt';
  if (flags.includes('command')) return 'control.command';
  if (isNotice(record)) return 'runtime.notification';
  if (flags.includes('external_input') || flags.includes('apparent_input')) return 'message.external';
  return 'context.injection';
}

function sortById<T extends { id: string }>(values: T[]): T[] {
  return values.sort((a, b) => compare(a.id, b.id));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
