// Collection on every core.
//
// A session is the unit of work and is landed by one thread, because its
// sequence counter spans all its streams. Different sessions share nothing,
// so they land in parallel. Deriving the `.sd` of a landed file needs no
// counter at all, so each landed file is its own task too, which spreads even
// a single very large session over the cores once it has landed.
//
// Starting a worker costs about 150 ms (it loads the TypeScript loader and the
// adapter), so small passes stay on one thread: see PARALLEL_FROM_BYTES.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { readCursor } from '../landing/cursor.ts';
import { cursorName, placeFolder } from '../landing/layout.ts';
import { landedFilesWithoutSessionData } from '../session-data/derive.ts';
import type { SessionOutcome, SourceOutcome } from './collector.ts';
import type { Adapter, DiscoveredSession } from './source.ts';

/** Below this many new bytes in a pass, one thread is faster than starting workers. */
export const PARALLEL_FROM_BYTES = 64 << 20;

export type Task = ({ type: 'land'; session: DiscoveredSession; data: string; sourceRoot: string } | { type: 'derive'; file: string; digest?: string }) & {
  id: number;
  adapter: Adapter['location'];
};

export type TaskAnswer =
  | { type: 'landed'; id: number; outcome: SessionOutcome }
  | { type: 'derived'; id: number; file: string; unknownShapes: Map<string, number> }
  | { type: 'failed'; id: number; message: string };

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

interface SessionProgress {
  outcome: SessionOutcome;
  derivations: number;
  mended: number;
  unreadable: string[];
  landed: boolean;
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

/** Lands the sessions on `workers` threads and derives every missing `.sd`. Resolves with one outcome per session. */
export async function collectInParallel(sessions: DiscoveredSession[], options: ParallelOptions): Promise<SessionOutcome[]> {
  const entry = new URL('./worker-entry.mjs', import.meta.url);
  const order = [...sessions].sort((a, b) => sessionBytes(b) - sessionBytes(a));
  const queue: Task[] = [];
  let nextId = 0;
  const progress = new Map<string, SessionProgress>();
  const owner = new Map<number, string>();
  const outcomes: SessionOutcome[] = [];

  for (const session of order) {
    const id = nextId++;
    owner.set(id, session.id);
    queue.push({ type: 'land', id, session, data: options.data, sourceRoot: options.sourceRoot, adapter: options.adapter.location });
  }

  const finishIfDone = (session: string): void => {
    const state = progress.get(session)!;
    if (!state.landed || state.derivations > 0) return;
    const outcome: SessionOutcome = { ...state.outcome, mended: state.outcome.mended + state.mended, unreadable: [...state.outcome.unreadable, ...state.unreadable] };
    outcomes.push(outcome);
    options.onSession?.(outcome);
  };

  const onAnswer = (answer: TaskAnswer): void => {
    const session = owner.get(answer.id)!;
    owner.delete(answer.id);
    if (answer.type === 'landed' || (answer.type === 'failed' && !progress.has(session))) {
      const outcome = answer.type === 'landed' ? answer.outcome : { session, sources: [], mended: 0, unreadable: [`session ${session}: ${answer.message}`] };
      const state: SessionProgress = { outcome, derivations: 0, mended: 0, unreadable: [], landed: true };
      progress.set(session, state);
      // Every landed file of the session without its `.sd`: those just landed,
      // and any left behind by an earlier interrupted pass. Derivations go to
      // the front of the queue so that a session finishes as soon as it can.
      // The digest of a file landed in this pass is known already; reading it
      // again only to hash it would cost a second pass over every byte.
      const digests = new Map(outcome.sources.flatMap((source) => source.landed.map((file) => [file.file, file.digest] as const)));
      for (const landed of options.deriveSessionData === false ? [] : landedFilesWithoutSessionData(options.data, session).reverse()) {
        const id = nextId++;
        owner.set(id, session);
        queue.unshift({ type: 'derive', id, file: landed.path, digest: digests.get(`${session}/${landed.relative}`), adapter: options.adapter.location });
        state.derivations++;
      }
      finishIfDone(session);
      return;
    }
    const state = progress.get(session)!;
    state.derivations--;
    if (answer.type === 'failed') {
      state.unreadable.push(answer.message);
    } else {
      const relative = path.relative(options.data, answer.file).split(path.sep).join('/');
      const source = state.outcome.sources.find((candidate) => candidate.landed.some((file) => file.file === relative));
      if (source) mergeShapes(source, answer.unknownShapes);
      else state.mended++;
    }
    finishIfDone(session);
  };

  const count = Math.max(1, Math.min(options.workers, order.length));
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
          if (queue.length === 0 && busy === 0) resolve();
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

function mergeShapes(source: SourceOutcome, shapes: Map<string, number>): void {
  for (const [why, count] of shapes) source.unknownShapes.set(why, (source.unknownShapes.get(why) ?? 0) + count);
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
