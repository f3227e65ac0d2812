// The folded structure of one conversation as streams of epochs and talks,
// each talk with its runs and steps, every step with the parts of the
// records it is made of, its evidence, its relations and anything left
// unresolved about it.

import crypto from 'node:crypto';
import { RELATION_TYPES, UNRESOLVED_KINDS, type RelationType } from '../../model/structure.ts';
import type { Usage } from '../../session-data/format.ts';
import type { EntityFrame } from '../../session-flow/format.ts';
import type { EvidenceRef } from '../../model/structure.ts';
import { refKey, type BundleConversation } from './bundle.ts';
import { underItsCall } from './parts.ts';
import type { ConversationRows } from './rows.ts';
import { partsOfStep, toolUseOf } from './row-outline.ts';
import type { EpochView, EvidenceView, LinkView, RunView, StepView, StreamView, TalkView, UnresolvedView } from './views.ts';

type Node = EntityFrame & { t: 'node' };

/**
 * Where a node is shown: a page file and anchor, or undefined when no page
 * shows it. `talk` is the talk the node is in (for an epoch, its first talk).
 */
export type Resolve = (nodeId: string, talk: string | undefined) => string | undefined;

/**
 * A stable HTML id for a node: its ids hold slashes and colons, which anchors
 * would have to escape. Hashed in one call rather than through a Hash object
 * made for each, which is markedly slower, and a conversation has one for
 * every node (bench/results/measurements-behind-choices.md).
 */
export function anchorOf(id: string): string {
  return `n${crypto.hash('sha256', id, 'hex').slice(0, 12)}`;
}

/** The talks of the main stream that a branch's records start, by branch name. */
export function talksByBranch(conversation: BundleConversation, talks: readonly TalkView[]): Map<string, TalkView[]> {
  const byBranch = new Map<string, TalkView[]>();
  const startKey = (talk: TalkView): string | undefined => (talk.start ? `${talk.start.seq}:${talk.start.row}` : undefined);
  for (const branch of conversation.branches.branches) {
    if (branch.active) continue;
    const keys = new Set(branch.path.map(refKey));
    byBranch.set(branch.name, talks.filter((talk) => keys.has(startKey(talk) ?? '')));
  }
  for (const explicit of conversation.explicit) {
    const keys = new Set(explicit.path.map(refKey));
    byBranch.set(explicit.record.name, talks.filter((talk) => keys.has(startKey(talk) ?? '')));
  }
  return byBranch;
}

/**
 * The talks of the main stream that the conversation's own pages show: all
 * but those a branch other than the active one starts, which are read on
 * that branch's page. What its header and its index row count as prompts.
 */
export function ownTalks(conversation: BundleConversation, talks: readonly TalkView[], byBranch = talksByBranch(conversation, talks)): TalkView[] {
  const elsewhere = new Set(conversation.branches.branches.filter((branch) => !branch.active).flatMap((branch) => byBranch.get(branch.name) ?? []));
  return talks.filter((talk) => !elsewhere.has(talk));
}

/**
 * A conversation's streams, talks and steps, without the steps' parts: what
 * the plan is made from and what every page of it takes its talks from.
 * A step's parts are read from its rows when a page shows it (withParts):
 * held here, a large conversation kept all of their texts for as long as
 * its pages rendered (bench/results/measurements-behind-choices.md).
 */
export interface ConversationStructure {
  readonly streams: StreamView[];
  /** The talk each node belongs to. */
  readonly talkOf: Map<string, string>;
  readonly nodes: Map<string, Node>;
}

export function conversationStructure(conversation: BundleConversation, resolve: Resolve): ConversationStructure {
  const nodes = conversation.folded.nodes as Map<string, Node>;
  const children = new Map<string, Node[]>();
  for (const node of nodes.values()) {
    if (node.parent === undefined) continue;
    const list = children.get(node.parent) ?? [];
    list.push(node);
    children.set(node.parent, list);
  }
  for (const list of children.values()) list.sort(inEvidenceOrder);
  const talkOf = new Map<string, string>();
  const markTalk = (id: string, talk: string): void => {
    talkOf.set(id, talk);
    for (const child of children.get(id) ?? []) markTalk(child.id, talk);
  };
  for (const node of nodes.values()) if (node.kind === 'talk') markTalk(node.id, node.id);
  // A compaction the runtime made while the agent worked has its summary in
  // the talk it interrupted: its boundary is shown there, right before the
  // summary (boundaryBefore), and belongs to that talk's page.
  const boundaryBefore = new Map<string, Node>();
  for (const relation of conversation.folded.relations.values()) {
    if (relation.t !== 'relation' || relation.type !== 'summarizes') continue;
    const boundary = nodes.get(relation.to);
    const talk = talkOf.get(relation.from);
    if (boundary?.kind !== 'epoch.boundary' || talk === undefined || talkOf.has(boundary.id) || nodes.get(relation.from)?.kind !== 'epoch.summary') continue;
    boundaryBefore.set(relation.from, boundary);
    talkOf.set(boundary.id, talk);
  }
  const shownIn = new Map([...boundaryBefore.values()].map((boundary) => [boundary.id, talkOf.get(boundary.id)!]));
  // A node outside every talk (an epoch, its boundary and summary) is shown
  // in the epoch's heading, which is on the page of the epoch's first talk.
  const placeOf = (id: string): string | undefined => {
    for (let at = nodes.get(id); at; at = at.parent === undefined ? undefined : nodes.get(at.parent)) {
      const talk = talkOf.get(at.id);
      if (talk !== undefined) return talk;
      if (at.kind === 'epoch') return children.get(at.id)?.find((child) => child.kind === 'talk')?.id;
    }
    return undefined;
  };

  const outgoing = new Map<string, EntityFrame[]>();
  const incoming = new Map<string, EntityFrame[]>();
  for (const relation of conversation.folded.relations.values()) {
    if (relation.t !== 'relation' || relation.type === 'in_segment') continue;
    (outgoing.get(relation.from) ?? outgoing.set(relation.from, []).get(relation.from)!).push(relation);
    (incoming.get(relation.to) ?? incoming.set(relation.to, []).get(relation.to)!).push(relation);
  }
  const unresolvedAbout = new Map<string, UnresolvedView[]>();
  for (const entry of conversation.folded.unresolved.values()) {
    if (entry.t !== 'unresolved' || entry.state === 'resolved') continue;
    const list = unresolvedAbout.get(entry.ref) ?? [];
    list.push({ kind: entry.kind, state: entry.state, about: entry.ref, meaning: UNRESOLVED_MEANINGS.get(entry.kind) ?? entry.kind });
    unresolvedAbout.set(entry.ref, list);
  }

  const labelOf = (id: string): string => {
    const node = nodes.get(id);
    if (!node) return id;
    if (node.kind === 'stream') return `stream ${id.slice('stream/'.length)}`;
    const name = node.attrs?.name;
    return `${node.kind}${typeof name === 'string' ? ` ${name}` : ''}`;
  };
  const linksOf = (id: string): LinkView[] => {
    const links: LinkView[] = [];
    for (const relation of outgoing.get(id) ?? []) {
      if (relation.t !== 'relation') continue;
      links.push(lazyLink(`${relation.type} → ${labelOf(relation.to)}`, resolve, relation.to, placeOf(relation.to), relation));
    }
    for (const relation of incoming.get(id) ?? []) {
      if (relation.t !== 'relation') continue;
      links.push(lazyLink(`${inverse(relation.type)} ← ${labelOf(relation.from)}`, resolve, relation.from, placeOf(relation.from), relation));
    }
    return links;
  };
  const evidence = (refs: readonly EvidenceRef[]): EvidenceView[] =>
    refs.map((ref) => {
      const page = conversation.evidence.hrefOf(ref);
      return { seq: ref.seq, row: ref.row, file: conversation.landed.has(ref.seq) ? `bundle/${conversation.landed.get(ref.seq)!}` : undefined, ...(page !== undefined ? { page } : {}) };
    });
  const step = (node: Node): StepView => {
    const outlines = refsOf(node).flatMap((ref) => conversation.rows.outlineOf(ref) ?? []);
    const toolUse = toolUseOf(node.kind, node.id);
    const notice = outlines.find((outline) => outline.notice !== undefined)?.notice;
    const attrs = node.attrs ?? {};
    const qualities = Object.entries(attrs)
      .filter(([name, value]) => typeof value === 'string' && name !== 'name')
      .map(([name, value]) => ({ name, value: value as string }));
    const made: StepView = {
      id: node.id,
      anchor: anchorOf(node.id),
      kind: node.kind,
      ...(outlines[0]?.ts !== undefined ? { time: outlines[0].ts } : {}),
      evidence: evidence(refsOf(node)),
      parts: [],
      flags: [...new Set(outlines.flatMap((outline) => outline.flags ?? []))],
      qualities,
      ...(attrs.usage !== undefined ? { usage: attrs.usage as Usage } : {}),
      ...(notice !== undefined ? { notice } : {}),
      ...(typeof attrs.fragments === 'number' ? { fragments: attrs.fragments } : {}),
      ...(typeof attrs.name === 'string' ? { toolName: attrs.name } : {}),
      links: linksOf(node.id),
      unresolved: [...(unresolvedAbout.get(node.id) ?? []), ...(toolUse !== undefined ? (unresolvedAbout.get(toolUse) ?? []) : [])],
      children: (children.get(node.id) ?? []).map(step),
    };
    return made;
  };

  const streams: StreamView[] = [];
  for (const streamNode of [...nodes.values()].filter((node) => node.kind === 'stream').sort((a, b) => (a.id === 'stream/main' ? -1 : b.id === 'stream/main' ? 1 : a.id < b.id ? -1 : 1))) {
    const epochs: EpochView[] = [];
    const talks: TalkView[] = [];
    for (const epochNode of children.get(streamNode.id) ?? []) {
      if (epochNode.kind !== 'epoch') continue;
      const under = children.get(epochNode.id) ?? [];
      const boundaryIn = under.map((node) => shownIn.get(node.id)).find((talk) => talk !== undefined);
      epochs.push({
        id: epochNode.id,
        anchor: anchorOf(epochNode.id),
        number: epochs.length + 1,
        steps: under.filter((node) => node.kind !== 'talk' && !shownIn.has(node.id)).map(step),
        links: linksOf(epochNode.id),
        ...(boundaryIn !== undefined ? { boundaryIn } : {}),
      });
      for (const talkNode of under.filter((node) => node.kind === 'talk')) {
        const runs: RunView[] = [];
        const loose: StepView[] = [];
        // A summary of a compaction made within the talk comes after its boundary.
        const withBoundary = (node: Node): Node[] => (boundaryBefore.has(node.id) ? [boundaryBefore.get(node.id)!, node] : [node]);
        for (const child of children.get(talkNode.id) ?? []) {
          if (child.kind === 'run') runs.push({ id: child.id, anchor: anchorOf(child.id), qualities: stringAttrs(child), steps: (children.get(child.id) ?? []).flatMap(withBoundary).map(step) });
          else loose.push(...withBoundary(child).map(step));
        }
        const all = stepsOfTalk({ loose, runs }).flatMap(flatten);
        const times = all.flatMap((item) => (item.time !== undefined ? [item.time] : [])).sort();
        talks.push({
          id: talkNode.id,
          anchor: anchorOf(talkNode.id),
          number: talks.length + 1,
          epoch: epochNode.id,
          startedBy: typeof talkNode.attrs?.started_by === 'string' ? talkNode.attrs.started_by : 'unavailable',
          ...(times.length > 0 ? { from: times[0]!, to: times.at(-1)! } : {}),
          ...(talkNode.ref !== undefined ? { start: evidence([talkNode.ref])[0]! } : {}),
          runs,
          loose,
          links: linksOf(talkNode.id),
          keys: all.flatMap((item) => item.evidence.map((ref) => `${ref.seq}:${ref.row}`)),
        });
      }
    }
    const label = (streamNode.attrs?.label ?? streamNode.attrs?.description) as string | undefined;
    const starter = (incoming.get(streamNode.id) ?? []).find((relation) => relation.t === 'relation' && relation.type === 'starts');
    streams.push({
      id: streamNode.id,
      name: streamNode.id.slice('stream/'.length),
      child: streamNode.attrs?.child === true,
      ...(typeof label === 'string' ? { label } : {}),
      ...(starter?.t === 'relation' ? { startedBy: starter.from, starter: lazyLink(callNamed(nodes.get(starter.from)), resolve, starter.from, placeOf(starter.from), starter) } : {}),
      epochs,
      talks,
      links: linksOf(streamNode.id),
    });
  }
  return { streams, talkOf, nodes };
}

/** A talk's steps, without their children: those outside any run, then each run's. */
export function stepsOfTalk(talk: Pick<TalkView, 'loose' | 'runs'>): StepView[] {
  return [...talk.loose, ...talk.runs.flatMap((run) => run.steps)];
}

/**
 * The step as a page shows it: with its parts, and its children's, read
 * from the rows of its evidence. The structure's steps have none; a page's
 * are given theirs as it is modelled (site.ts, pageModel), so that what is
 * held at once is one page's.
 */
export function withParts(step: StepView, rows: ConversationRows): StepView {
  const toolUse = toolUseOf(step.kind, step.id);
  const parts = partsOfStep(step.kind, step.id, step.evidence, (ref) => rows.partsOf(ref)).map((part) => (toolUse === undefined ? part.view : underItsCall(part.view)));
  return { ...step, parts, children: step.children.map((child) => withParts(child, rows)) };
}

/**
 * A link whose page is looked up when it is read, not now: the site plans its
 * pages from the structure and then renders from the same one (site.ts). Made
 * out here so that the link holds its target and nothing else of the
 * conversation: a closure inside conversationStructure would keep all that
 * the structure was made from, its rows too, for as long as the link lives.
 */
function lazyLink(label: string, resolve: Resolve, target: string, talk: string | undefined, relation: EntityFrame & { t: 'relation' }): LinkView {
  return {
    label,
    get href() {
      return resolve(target, talk);
    },
    quality: relation.quality,
    via: relation.via,
  };
}

/** A call as a reader names it: by its tool, as "the Task call". */
function callNamed(node: Node | undefined): string {
  const name = node?.attrs?.name;
  return typeof name === 'string' && name !== '' ? `the ${name} call` : 'the call';
}

function flatten(step: StepView): StepView[] {
  return [step, ...step.children.flatMap(flatten)];
}

function stringAttrs(node: Node): { name: string; value: string }[] {
  return Object.entries(node.attrs ?? {}).flatMap(([name, value]) => (typeof value === 'string' ? [{ name, value }] : []));
}

export function refsOf(node: Node): EvidenceRef[] {
  return node.refs ?? (node.ref ? [node.ref] : []);
}

// A node with no record of its own (the first epoch, a run) comes first
// among its siblings: it opens what it holds.
function inEvidenceOrder(a: Node, b: Node): number {
  const left = a.ref ?? { seq: 0, row: 0 };
  const right = b.ref ?? { seq: 0, row: 0 };
  return left.seq - right.seq || left.row - right.row || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

// Kinds and types are read from the bundle's rounds: they are looked up in
// Maps, so that none finds a property of an object's prototype.
const UNRESOLVED_MEANINGS: ReadonlyMap<string, string> = new Map(Object.entries(UNRESOLVED_KINDS));
const INVERSE_NAMES: Readonly<Record<RelationType, string>> = { starts: 'started by', reports: 'reported by', follows: 'continued by', summarizes: 'summarized by', in_segment: 'holds' };
const INVERSES: ReadonlyMap<string, string> = new Map([...Object.entries(RELATION_TYPES), ...Object.entries(INVERSE_NAMES)]);

/** How a relation reads from its target's side. */
function inverse(type: string): string {
  return INVERSES.get(type) ?? type;
}
