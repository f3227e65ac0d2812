// Collection on every core (cores/work-on-cores.ts).
//
// A session is the unit of work and is landed by one thread, because its
// sequence counter spans all its streams. Different sessions share nothing,
// so they land in parallel, each with its `.sd` derived as it lands; each
// thread commits the sessions it lands in shared batches (collectSessions),
// as one thread does. Small passes stay on one thread: see
// PARALLEL_FROM_BYTES.

import fs from 'node:fs';
import { WORKER_OLD_GENERATION_MB, workerModule, workOnCores } from '../cores/work-on-cores.ts';
import { readCursor } from '../landing/cursor.ts';
import { SessionFolder } from '../landing/session-folder.ts';
import { releaseLockHeldByThisProcess } from '../landing/lock.ts';
import { collectSessions } from './collector.ts';
import { failed, type SessionOutcome } from './outcome.ts';
import type { Adapter, DiscoveredSession } from '../adapters/adapter.ts';

/**
 * Below this many new bytes in a pass, one thread is faster than starting
 * workers; past it, workers are as fast or faster, and the export process's
 * own heap is not grown by the landing (bench/results/site-step-2026-12-06-stop-45.md).
 */
export const PARALLEL_FROM_BYTES = 32 << 20;

/** What every collecting thread is given besides the sessions. */
export interface CollectionTask {
  readonly options: { data: string; sourceRoot: string; deriveSessionData?: boolean };
  readonly adapter: Adapter['location'];
}

/** The worker's module: its own build in the kept command's bundle, else its source. */
export const COLLECTION_WORKER = workerModule('collection-worker', new URL('./worker.ts', import.meta.url));

/** Bytes a pass would read as new: what each source has beyond its cursor. */
export function pendingBytes(sessions: DiscoveredSession[], data: string): number {
  let pending = 0;
  for (const session of sessions) {
    const folder = new SessionFolder(data, session.id);
    for (const source of session.sources) {
      let size = 0;
      try {
        size = fs.statSync(source.path).size;
      } catch {
        continue;
      }
      let cursor;
      try {
        cursor = readCursor(folder.cursorFile(source.place, source.cursorKey));
      } catch {
        cursor = undefined;
      }
      if (cursor?.type === 'append') pending += Math.max(0, size - cursor.offset);
      else if (cursor === undefined) pending += size;
    }
  }
  return pending;
}

export interface ParallelOptions {
  readonly data: string;
  readonly sourceRoot: string;
  readonly adapter: Adapter;
  /** Threads to collect on, the calling one included. */
  readonly workers: number;
  /** Collect on `workers` worker threads alone, the calling thread only waiting for them: an export's, whose calling thread's heap stays for its later steps (cli export, export/pipeline.ts), and tests. */
  readonly workersOnly?: boolean;
  /** False to land only; see CollectOptions.deriveSessionData. */
  readonly deriveSessionData?: boolean;
  readonly onSession?: (outcome: SessionOutcome) => void;
}

/**
 * Lands the sessions on `workers` threads, each with its `.sd`. Resolves with
 * one outcome per session, in the order they were committed. A worker that
 * fails fails only the sessions it had taken and not yet committed, each
 * named; what it committed stays, and the other threads take the rest.
 */
export async function collectInParallel(sessions: DiscoveredSession[], options: ParallelOptions): Promise<SessionOutcome[]> {
  const ordered = sessions.map((session) => ({ session, bytes: sessionBytes(session) })).sort((a, b) => b.bytes - a.bytes).map((entry) => entry.session);
  const task: CollectionTask = { options: { data: options.data, sourceRoot: options.sourceRoot, deriveSessionData: options.deriveSessionData }, adapter: options.adapter.location };
  return workOnCores({
    items: ordered,
    threads: options.workers,
    workersOnly: options.workersOnly,
    name: 'the collection worker',
    worker: COLLECTION_WORKER,
    task,
    here: (taken, report) => void collectSessions(taken, { ...task.options, adapter: options.adapter }, report),
    itemKey: (session) => session.id,
    outcomeKey: (outcome) => outcome.session,
    lost(session, why) {
      // The worker cannot release the session's lock any more.
      releaseLockHeldByThisProcess(options.data, session.id);
      return failed(session.id, `${why} before this session was committed; what was committed before stays, and the next pass lands the rest`);
    },
    onOutcome: options.onSession,
    // The young generation is V8's own: capped as a parse worker's is, the
    // export's peak, in its parse step, stayed where it was, for more
    // processor time (bench/results/measurements-behind-choices.md).
    oldGenerationMb: WORKER_OLD_GENERATION_MB,
  });
}

function sessionBytes(session: DiscoveredSession): number {
  let bytes = 0;
  for (const source of session.sources) {
    try {
      bytes += fs.statSync(source.path).size;
    } catch {
      // Gone since discovery; the landing will say so.
    }
  }
  return bytes;
}
