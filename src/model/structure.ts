// The conversation structure's vocabulary: node kinds, relation types, and
// the qualifications every claim and join carries. These are the unified
// model's words (seed docs/en/concepts-and-designs/unified-conversation-model.md)
// and no runtime's; the adapter's glossary says what a runtime calls each.

/** Containers: the tree a person reads. Each node has at most one parent. */
export const CONTAINER_KINDS = {
  session: 'observed source provenance: one runtime session',
  stream: 'an ordered lineage of one agent: main, or one child',
  epoch: 'the lifetime of one model context within a stream',
  talk: 'one interaction that began outside the agent',
  run: 'one agent loop inside a Talk',
  segment: 'an activity window proposed for commit; a time window, joined by relation, never a parent',
  branch: 'one path through the conversation tree from a fork point to its tip; the active one, or one a rewind left',
} as const;

/** Steps: the observed occurrences inside a run. */
export const STEP_KINDS = {
  'message.external': 'input from outside the agent, typically a person',
  'message.assistant': 'agent output the requester sees',
  'message.synthetic': 'an assistant-role record the client made up (an error, a refusal); never agent output',
  'context.injection': 'material the harness put into model context: instructions, memory, reminders, notices',
  'llm.call': 'one provider call: its fragments, in line order',
  thinking: 'reasoning that came with a model response',
  tool: 'one tool use: the request and what came back, as one step',
  'agent.call': 'a tool use that started or continued a child agent',
  'agent.launch_ack': 'the acknowledgement that a child started; not its result',
  'runtime.notification': 'the runtime telling the parent that background work finished',
  'epoch.boundary': 'an explicit reset of model context',
  'epoch.summary': 'the summary carried into the context after a reset',
  'error.api': 'a failed provider request',
  'control.interrupt': 'the person interrupted the agent',
  'control.command': 'a command the person ran locally',
  'turn.duration': 'a duration the runtime reported for a finished turn',
} as const;

export type NodeKind = keyof typeof CONTAINER_KINDS | keyof typeof STEP_KINDS;
export const NODE_KINDS = [...Object.keys(CONTAINER_KINDS), ...Object.keys(STEP_KINDS)] as NodeKind[];

/** Everything that is not containment is a typed relation with its own correlation quality. */
export const RELATION_TYPES = {
  starts: 'a call started a child stream',
  reports: 'a notification reports on the call or stream whose work finished',
  follows: 'a context epoch continues from the record before its reset',
  summarizes: 'a summary carries the context that a reset ended',
  in_segment: 'a talk falls inside an activity window',
} as const;
export type RelationType = keyof typeof RELATION_TYPES;

/** What kind of claim a value is. */
export const CLAIM_STATES = {
  observed_replayable: 'derived from retained evidence that can be replayed',
  observed_report_only: 'observed, but the evidence is not retained',
  proposed: 'a design target, not produced yet',
  unavailable: 'the source cannot supply it',
} as const;
export type ClaimState = keyof typeof CLAIM_STATES;

/** How well a join between two records is founded. */
export const CORRELATION_QUALITIES = {
  exact_unique: 'an exact identifier match with exactly one candidate',
  exact_ambiguous: 'an exact identifier match with several candidates; never silently resolved',
  strong_inference: 'no identifier, but a well-founded structural argument',
  weak_inference: 'plausible only',
  unresolved: 'no usable evidence',
  conflict: 'sources disagree',
} as const;
export type CorrelationQuality = keyof typeof CORRELATION_QUALITIES;

/** References assembly could not resolve, carried as data. */
export const UNRESOLVED_KINDS = {
  tool_result: 'a tool use whose result is not in the evidence',
  orphan_result: 'a tool result that answers no tool use of its stream',
  notification_call: 'a completion notice names a call found in none of the session’s streams',
  orphan_stream: 'a child stream that nothing names as started',
  child_stream: 'a call or a run journal names a child whose transcript is not in the evidence',
  epoch_parent: 'a context reset names a record before it that is not in the evidence',
} as const;
export type UnresolvedKind = keyof typeof UNRESOLVED_KINDS;

/** open may still resolve with more evidence; terminal cannot; resolved did. */
export const UNRESOLVED_STATES = ['open', 'terminal', 'resolved'] as const;
export type UnresolvedState = (typeof UNRESOLVED_STATES)[number];

// The entities themselves, as assembly makes them and a round (`.sf`) carries them.

/** A landed record: sequence of its landed file, and its row there. */
export interface EvidenceRef {
  readonly seq: number;
  readonly row: number;
}

export interface FlowNode {
  readonly id: string;
  readonly kind: NodeKind;
  readonly parent?: string;
  readonly stream?: string;
  /** The record the node is, or begins at. */
  readonly ref?: EvidenceRef;
  /** Every record the node is made of, in landed order. */
  readonly refs?: EvidenceRef[];
  readonly attrs?: Record<string, unknown>;
}

export interface FlowRelation {
  readonly id: string;
  readonly type: RelationType;
  readonly from: string;
  readonly to: string;
  readonly quality: CorrelationQuality;
  /** Which evidence the join rests on, in the model's words. */
  readonly via: string;
  readonly evidence: EvidenceRef[];
}

export interface FlowUnresolved {
  readonly id: string;
  readonly kind: UnresolvedKind;
  /** What it is about: a node id or an identifier. */
  readonly ref: string;
  readonly state: UnresolvedState;
  readonly evidence: EvidenceRef[];
}

/** What one assembly produces: every entity of the conversation, as of its evidence. */
export interface Structure {
  readonly nodes: FlowNode[];
  readonly relations: FlowRelation[];
  readonly unresolved: FlowUnresolved[];
  /** Counts with their denominators, for a reader: "3 of 8,045 tool uses". */
  readonly counts: Record<string, number>;
  /** What the structure claims, per claim: observed or unavailable. */
  readonly claims?: Record<string, ClaimState>;
}
