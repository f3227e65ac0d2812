// Collection on every core.
//
// A session is the unit of work and is landed by one thread, because its
// sequence counter spans all its streams. Different sessions share nothing,
// so they land in parallel, each with its `.sd` derived as it lands. The
// largest sessions go first, so that the last one to finish is a small one
// and both cores stay busy to the end; the exception is a pass whose one
// session is more than half of everything, which one core has to land alone.
//
// Starting a worker costs about 150 ms (it loads the TypeScript loader and the
// adapter), so small passes stay on one thread: see PARALLEL_FROM_BYTES.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { readCursor } from '../landing/cursor.ts';
import { cursorName, placeFolder } from '../landing/layout.ts';
import type { SessionOutcome } from './collector.ts';
import type { Adapter, DiscoveredSession } from './source.ts';

/** Below this many new bytes in a pass, one thread is faster than starting workers. */
export const PARALLEL_FROM_BYTES = 64 << 20;

export interface Task {
  readonly id: number;
  /** Landed one after another, committed in shared batches (collectSessions). */
  readonly sessions: DiscoveredSession[];
  readonly options: { data: string; sourceRoot: string; deriveSessionData?: boolean };
  readonly adapter: Adapter['location'];
}

export type TaskAnswer = { type: 'landed'; id: number; outcomes: SessionOutcome[] } | { type: 'failed'; id: number; message: string };

// Small sessions are handed to a worker in groups of about this many bytes,
// so that they share commit batches as they do on one thread; a larger
// session is a task of its own. A group is small against a pass big enough
// for workers (PARALLEL_FROM_BYTES), so the last task is short and both
// cores stay busy to the end.
const GROUP_BYTES = 8 << 20;

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
  readonly workers: number;
  /** False to land only; see CollectOptions.deriveSessionData. */
  readonly deriveSessionData?: boolean;
  readonly onSession?: (outcome: SessionOutcome) => void;
}

/** Lands the sessions on `workers` threads, each with its `.sd`. Resolves with one outcome per session, in the order they finished. */
export async function collectInParallel(sessions: DiscoveredSession[], options: ParallelOptions): Promise<SessionOutcome[]> {
  const entry = new URL('./worker-entry.mjs', import.meta.url);
  const queue: Task[] = [];
  let group: DiscoveredSession[] = [];
  let groupBytes = 0;
  const close = (): void => {
    if (group.length === 0) return;
    queue.push({ id: queue.length, sessions: group, options: { data: options.data, sourceRoot: options.sourceRoot, deriveSessionData: options.deriveSessionData }, adapter: options.adapter.location });
    group = [];
    groupBytes = 0;
  };
  for (const { session, bytes } of sessions.map((session) => ({ session, bytes: sessionBytes(session) })).sort((a, b) => b.bytes - a.bytes)) {
    group.push(session);
    groupBytes += bytes;
    if (groupBytes >= GROUP_BYTES) close();
  }
  close();
  const tasks = new Map(queue.map((task) => [task.id, task]));
  const outcomes: SessionOutcome[] = [];
  const onAnswer = (answer: TaskAnswer): void => {
    const landed = answer.type === 'landed' ? answer.outcomes : tasks.get(answer.id)!.sessions.map((session) => ({ session: session.id, sources: [], mended: 0, unreadable: [`session ${session.id}: ${answer.message}`] }));
    for (const outcome of landed) {
      outcomes.push(outcome);
      options.onSession?.(outcome);
    }
  };

  const count = Math.max(1, Math.min(options.workers, queue.length));
  const workers = Array.from({ length: count }, () => new Worker(entry));
  try {
    await new Promise<void>((resolve, reject) => {
      let busy = 0;
      const feed = (worker: Worker): void => {
        const task = queue.shift();
        if (!task) {
          if (busy === 0) resolve();
          return;
        }
        busy++;
        worker.postMessage(task);
      };
      for (const worker of workers) {
        worker.on('message', (answer: TaskAnswer) => {
          busy--;
          try {
            onAnswer(answer);
          } catch (error) {
            reject(error);
            return;
          }
          feed(worker);
        });
        worker.on('error', reject);
        worker.on('exit', (code) => {
          if (code !== 0) reject(new Error(`a collection worker stopped with exit code ${code}`));
        });
      }
      for (const worker of workers) feed(worker);
    });
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
      // Gone since discovery; the landing task will say so.
    }
  }
  return bytes;
}
