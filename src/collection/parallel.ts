// Collection on every core.
//
// A session is the unit of work and is landed by one thread, because its
// sequence counter spans all its streams. Different sessions share nothing,
// so they land in parallel, each with its `.sd` derived as it lands. Every
// thread, the calling one included, takes the next session from one shared
// counter over the sessions sorted largest first, so the last ones to finish
// are small and every core stays busy to the end; each thread commits the
// sessions it lands in shared batches (collectSessions), as one thread does.
//
// The calling thread collects beside the workers instead of waiting for
// them: a worker loads the TypeScript loader (165-196 ms of processor time
// and 17-20 MB here, for that alone) and then the adapter and the collector,
// so on the 2 cores of this machine one worker and the calling thread do the
// work of two workers for half of that. Small passes stay on one thread: see
// PARALLEL_FROM_BYTES.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { threadId, Worker } from 'node:worker_threads';
import { readCursor } from '../landing/cursor.ts';
import { cursorName, placeFolder } from '../landing/layout.ts';
import { releaseLockHeldByThisProcess } from '../landing/lock.ts';
import { collectSessions, type SessionOutcome } from './collector.ts';
import type { Adapter, DiscoveredSession } from './source.ts';

// The kept command's bundle (cli/kept-command.mjs) sets this to the URL of
// its own build of the worker, which a worker runs with no TypeScript loader;
// under tsx it is not defined, and a worker registers the loader first
// (worker-entry.mjs).
declare const KEPT_COLLECTION_WORKER: string | undefined;

/** Below this many new bytes in a pass, one thread is faster than starting workers. */
export const PARALLEL_FROM_BYTES = 64 << 20;

/** What every collecting thread is given: all the sessions and the shared counters that share them out. */
export interface Task {
  /** Largest first. */
  readonly sessions: DiscoveredSession[];
  readonly shares: SessionShares;
  readonly options: { data: string; sourceRoot: string; deriveSessionData?: boolean };
  readonly adapter: Adapter['location'];
}

export interface SessionShares {
  /** One counter: the index of the next session to take. */
  readonly next: Int32Array;
  /** For each session, 1 + the id of the thread that took it; 0 while no thread has. */
  readonly takenBy: Int32Array;
}

/** What a worker says: each session's outcome once it is committed, then that it is done. */
export type WorkerMessage = { type: 'session'; outcome: SessionOutcome } | { type: 'done' } | { type: 'failed'; message: string };

/** The sessions this thread takes from the shared counter, one at a time, as it is ready for the next. */
export function* takeSessions(sessions: readonly DiscoveredSession[], shares: SessionShares): Generator<DiscoveredSession> {
  for (;;) {
    const index = Atomics.add(shares.next, 0, 1);
    if (index >= sessions.length) return;
    Atomics.store(shares.takenBy, index, threadId + 1);
    yield sessions[index]!;
  }
}

export function defaultWorkers(): number {
  return Math.max(1, os.availableParallelism());
}

/** Bytes a pass would read as new: what each source has beyond its cursor. */
export function pendingBytes(sessions: DiscoveredSession[], data: string): number {
  let pending = 0;
  for (const session of sessions) {
    for (const source of session.sources) {
      let size = 0;
      try {
        size = fs.statSync(source.path).size;
      } catch {
        continue;
      }
      let cursor;
      try {
        cursor = readCursor(path.join(placeFolder(data, session.id, source.place), cursorName(source.cursorKey)));
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
  /** Collect on `workers` worker threads alone, the calling thread only waiting for them (as before it collected too); for tests. */
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
  const shares: SessionShares = { next: new Int32Array(new SharedArrayBuffer(4)), takenBy: new Int32Array(new SharedArrayBuffer(4 * Math.max(1, ordered.length))) };
  const task: Task = { sessions: ordered, shares, options: { data: options.data, sourceRoot: options.sourceRoot, deriveSessionData: options.deriveSessionData }, adapter: options.adapter.location };
  const outcomes: SessionOutcome[] = [];
  const reported = new Set<string>();
  const report = (outcome: SessionOutcome): void => {
    // Node delivers what a worker posted before it stopped ahead of its
    // 'exit'; should an outcome still come after the session was reported
    // failed, the first report stands, so that no session is reported twice.
    if (reported.has(outcome.session)) return;
    reported.add(outcome.session);
    outcomes.push(outcome);
    options.onSession?.(outcome);
  };

  const count = Math.max(1, Math.min(options.workersOnly ? options.workers : options.workers - 1, ordered.length));
  const entry = typeof KEPT_COLLECTION_WORKER === 'string' ? new URL(KEPT_COLLECTION_WORKER) : new URL('./worker-entry.mjs', import.meta.url);
  const workers = Array.from({ length: count }, () => new Worker(entry));
  // A worker's threadId reads -1 once it has stopped, so it is kept now.
  const threadIds = workers.map((worker) => worker.threadId);
  // Each settles with undefined when its worker is done, or with why it failed.
  const finished = workers.map(
    (worker) =>
      new Promise<string | undefined>((resolve) => {
        worker.on('message', (message: WorkerMessage) => {
          if (message.type === 'session') report(message.outcome);
          else resolve(message.type === 'done' ? undefined : message.message);
        });
        worker.on('error', (error) => resolve(`the collection worker failed: ${error.message}`));
        worker.on('exit', (code) => resolve(`the collection worker stopped with exit code ${code}`));
      }),
  );
  try {
    for (const worker of workers) worker.postMessage(task);
    const collect = (): void => {
      collectSessions(takeSessions(ordered, shares), { ...task.options, adapter: options.adapter }, report);
    };
    if (!options.workersOnly) collect();
    const failures = await Promise.all(finished);
    failures.forEach((failure, index) => {
      if (failure === undefined) return;
      const stopped = threadIds[index]! + 1;
      ordered.forEach((session, position) => {
        if (Atomics.load(shares.takenBy, position) !== stopped || reported.has(session.id)) return;
        // The worker cannot release the session's lock any more.
        releaseLockHeldByThisProcess(options.data, session.id);
        report({ session: session.id, sources: [], mended: 0, unreadable: [`session ${session.id}: ${failure} before this session was committed; what was committed before stays, and the next pass lands the rest`] });
      });
    });
    // Sessions no worker took, because every worker failed before it could.
    collect();
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return outcomes;
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
