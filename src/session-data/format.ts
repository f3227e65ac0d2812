// Session Data, `.sd` (schema sd/1): the landed records, normalised into the
// model's words. Design-notes/03 §4.3-4.5 in the seed is the source.
//
// One `.sd` per landed file, with the same sequence number and one row per
// landed record, so the coordinate {seq, row} addresses both the landed bytes
// and their normalised form. Nothing later in the pipeline reads a runtime's
// fields: it reads these.
//
// Two halves:
//   record level  the identifiers structure is built from, in role names:
//                 id parent call run ts trigger continues tool child batch flags notice usage
//   part level    what the content is: text reasoning call result media data unknown,
//                 each with its content state and its original size in bytes
// What the adapter leaves out on purpose (reasoning signatures) is named in
// `dropped` with its size, so a reader can see that something was there.
//
// `.sd` is derived and disposable: the landed file stays, so a wrong
// normalisation is a rebuild, never a loss.

import type { Notice } from '../model/notices.ts';
import type { ContentState, PartKind, Producer, RecordFlag, RecordTitleSource, Trigger } from '../model/vocabulary.ts';

export const SESSION_DATA_SCHEMA = 'sd/1';

export interface SessionDataHeader {
  readonly h: 1;
  readonly schema: typeof SESSION_DATA_SCHEMA;
  /** The runtime vocabulary the rows were converted from, with its version. */
  readonly dialect: string;
  readonly seq: number;
  readonly session: string;
  readonly stream: string | null;
  readonly run?: string;
  /** What the landed file holds. */
  readonly kind: string;
  /** The landed file's name, in the same folder. */
  readonly of: string;
  /** SHA-256 of the landed file's bytes. */
  readonly of_sha: string;
  /** Present when the landed file is a redacted copy made for an export. */
  readonly derived?: 'redacted';
}

export interface Usage {
  readonly input?: number;
  readonly output?: number;
  readonly cache_read?: number;
  readonly cache_write?: number;
}

interface PartCommon {
  readonly k: PartKind;
  readonly state: ContentState;
  /** Size in bytes of the original content, whatever part of it is held. */
  readonly bytes: number;
  /** In state `redacted` on an export's redacted copy: how many of those bytes were removed. */
  readonly removed?: number;
}

export interface TextPart extends PartCommon {
  readonly k: 'text' | 'reasoning';
  readonly text: string;
}

export interface CallPart extends PartCommon {
  readonly k: 'call';
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

export interface ResultPart extends PartCommon {
  readonly k: 'result';
  /** The call this is the result of. */
  readonly of: string;
  readonly text: string;
  /** true or false only when the runtime said so; absent is not success. */
  readonly failed?: boolean;
  /** The runtime's structured form of the same result, when it gives one. */
  readonly data?: unknown;
  /** Content blocks of the result that are neither text nor media, as they were. */
  readonly content?: unknown[];
}

export interface MediaPart extends PartCommon {
  readonly k: 'media';
  readonly media_type: string;
  /** Base64 content, when it is inline. */
  readonly data?: string;
  /** The call whose result this belongs to, for media inside a result. */
  readonly of?: string;
}

export interface DataPart extends PartCommon {
  readonly k: 'data';
  readonly data: unknown;
}

export interface UnknownPart extends PartCommon {
  readonly k: 'unknown';
  /** Why the adapter could not describe it. */
  readonly why: string;
  /** The original bytes as text (or base64, see `encoding`). */
  readonly raw: string;
  readonly encoding?: 'base64';
}

export type Part = TextPart | CallPart | ResultPart | MediaPart | DataPart | UnknownPart;

export interface Dropped {
  readonly what: string;
  readonly bytes: number;
  readonly why: string;
}

export interface SessionDataRow {
  /** 1-based position of the record in its landed file. */
  readonly row: number;
  readonly id?: string;
  /** The record this one hangs from in the runtime's own tree. */
  readonly parent?: string;
  /** The provider call this record is a fragment of. */
  readonly call?: string;
  /** The agent loop this record belongs to. */
  readonly run?: string;
  readonly ts?: string;
  readonly trigger?: Trigger;
  /** The record a new context resumes from, on a context reset. */
  readonly continues?: string;
  /** The tool use this record is about. */
  readonly tool?: string;
  /** The child stream this record names. */
  readonly child?: string;
  /** A group of children started together. */
  readonly batch?: string;
  /** The agent that started this stream, on a nested child's sidecar. */
  readonly started_by?: string;
  /** The record a pointer names as the conversation's latest leaf. */
  readonly leaf?: string;
  /** A name the runtime gives: a title, a child's description, a workflow's name. */
  readonly label?: string;
  /** Present when `label` titles the conversation: where that title comes from. */
  readonly title?: RecordTitleSource;
  /** The working directory the record names. */
  readonly cwd?: string;
  /** The git branch checked out in the working directory, as the record names it. */
  readonly git_branch?: string;
  /** On a prompt a person typed (not a command): the part that holds what they typed. */
  readonly prompt?: number;
  /** The project folder the landed file was found in, on the first row of each landed file. */
  readonly project?: string;
  readonly model?: string;
  /** Why the provider stopped, when it said. */
  readonly stop?: string;
  readonly from: Producer;
  readonly flags?: RecordFlag[];
  /** On a runtime record the adapter recognises: what it is, in the model's words (a hook, a finished turn, a compaction). */
  readonly notice?: Notice;
  readonly usage?: Usage;
  readonly parts: Part[];
  readonly dropped?: Dropped[];
}
