// What a pass says of each session and source it collected, the options it
// runs with, and what a session's collection carries from source to source.

import type { Adapter, CollectableSource } from '../adapters/adapter.ts';
import type { Cursor } from '../landing/cursor.ts';
import { placePath } from '../landing/layout.ts';
import type { SessionFolder } from '../landing/session-folder.ts';
import type { CommitBatch } from './commit-batch.ts';
import type { KnownFolders } from '../files/atomic-file.ts';
import type { BufferPool } from '../files/buffer-pool.ts';
import { refusedWriteCode } from '../files/write-failure.ts';

export interface LandedFileSummary {
  readonly seq: number;
  /** Path inside the data folder, with forward slashes. */
  readonly file: string;
  readonly records: number;
  readonly sourceBytes: number;
  /** SHA-256 of the landed file, computed as it was written. */
  readonly digest: string;
}

/** Something about a record that was landed anyway, but that a person should know. */
export interface RecordProblem {
  readonly ord: number;
  readonly offset: number;
  readonly what: string;
}

export type SourceStatus = 'landed' | 'unchanged' | 'empty' | 'conflict' | 'gone' | 'failed';

export interface SourceOutcome {
  readonly source: string;
  readonly place: string;
  readonly status: SourceStatus;
  readonly message?: string;
  readonly landed: LandedFileSummary[];
  readonly problems: RecordProblem[];
  readonly problemCount: number;
  /** With status `failed`, the code of the write the file system refused, when that was why (files/write-failure.ts). */
  readonly refused?: string;
  /** Bytes after the last newline: a write still in progress, left for the next pass. */
  readonly inFlightBytes: number;
  readonly unknownShapes: Map<string, number>;
  /** What the system said when the source file itself could not be read (`EACCES: permission denied`); the status is then `failed`. */
  readonly unreadable?: string;
}

export interface SessionOutcome {
  readonly session: string;
  readonly locked?: string;
  readonly sources: SourceOutcome[];
  /** `.sd` files derived for landed files that had none (an earlier crash, or a deleted `.sd`). */
  readonly mended: number;
  /** Landed files whose `.sd` could not be derived, each naming the file and line. */
  readonly unreadable: string[];
  /** Why the session as a whole could not be landed (its batch not committed, its folder not writable), when it could not; said in `unreadable` too. */
  readonly failure?: string;
  /** With `failure`, the code of the write the file system refused, when that was why (files/write-failure.ts). */
  readonly refused?: string;
}

export interface CollectOptions {
  readonly data: string;
  /** The source root the sources' relative paths are under, to tell a pruned source from a filtered one. */
  readonly sourceRoot: string;
  readonly adapter: Adapter;
  readonly now?: () => Date;
  /** False to land only, leaving every `.sd` to a later pass. The benchmark measures the two stages apart this way. */
  readonly deriveSessionData?: boolean;
}

/** What the collection of one session carries from source to source, under the session's lock. */
export interface SessionContext extends CollectOptions {
  readonly now: () => Date;
  /** The session's folder in the storage zone, which the pass lands into; its id is the session's. */
  readonly folder: SessionFolder;
  nextSeq: number;
  /** The session's landed files and cursors not yet committed. */
  readonly batch: CommitBatch;
  /** The pass's buffers and known folders, for every file it reads and writes. */
  readonly buffers: BufferPool;
  readonly folders: KnownFolders;
}

/** A session that could not be collected, with why. */
export function failed(session: string, why: unknown): SessionOutcome {
  const message = why instanceof Error ? why.message : String(why);
  const refused = refusedWriteCode(why);
  return { session, sources: [], mended: 0, unreadable: [`session ${session}: ${message}`], failure: message, ...(refused !== undefined ? { refused } : {}) };
}

/** A source an earlier conflict stopped: said again, and left alone until a person moves its cursor aside. */
export function stoppedEarlier(source: CollectableSource, cursorFile: string, cursor: Cursor): SourceOutcome {
  return outcome(source, 'conflict', `stopped by an earlier conflict: ${cursor.conflict ?? 'unknown'}. Its landed data is kept; move ${cursorFile} aside to land the source again from the start`);
}

export function outcome(source: CollectableSource, status: SourceStatus, message?: string): SourceOutcome {
  return emptyOutcome(source.relative, placePath(source.place), status, message);
}

export function emptyOutcome(source: string, place: string, status: SourceStatus, message?: string): SourceOutcome {
  return { source, place, status, message, landed: [], problems: [], problemCount: 0, inFlightBytes: 0, unknownShapes: new Map() };
}
