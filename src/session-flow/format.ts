// Session Flow, `.sf` (schema sf/1): the conversation structure as an
// append-only chain of immutable rounds (seed design-notes/02 §2).
//
//   {"t":"header","schema":"sf/1","conversation":…,"session":…,"round":2,"previous":"<digest of round 1>",
//    "from_seq":46,"through_seq":57,"input_digest":…,"parser":…,"policy":…}
//   {"t":"node",…} {"t":"relation",…} {"t":"unresolved",…}     entities, sorted by id
//   {"t":"commit","digest":"<sha-256 of every byte before this line>","counts":{…}}
//
// A round carries no wall-clock time: the same evidence and versions give the
// same bytes. Entity ids come from stable evidence. An entity's revision is the
// round that wrote it. The fold keeps the last writer per id, whole; an entity
// absent from a round is unchanged; removal is an explicit tombstone.

import type { FlowNode, FlowRelation, FlowUnresolved } from '../model/structure.ts';

export const SESSION_FLOW_SCHEMA = 'sf/1';

export interface RoundHeader {
  readonly t: 'header';
  readonly schema: typeof SESSION_FLOW_SCHEMA;
  readonly conversation: string;
  readonly session: string;
  readonly round: number;
  readonly previous: string | null;
  readonly from_seq: number;
  readonly through_seq: number;
  readonly input_digest: string;
  readonly parser: string;
  readonly policy: string;
}

export type EntityFrame =
  | ({ readonly t: 'node'; readonly revision: number; readonly tombstone?: true } & FlowNode)
  | ({ readonly t: 'relation'; readonly revision: number; readonly tombstone?: true } & FlowRelation)
  | ({ readonly t: 'unresolved'; readonly revision: number; readonly tombstone?: true } & FlowUnresolved);

export interface CommitFrame {
  readonly t: 'commit';
  readonly digest: string;
  readonly counts: { readonly nodes: number; readonly relations: number; readonly unresolved: number; readonly tombstones: number };
}
