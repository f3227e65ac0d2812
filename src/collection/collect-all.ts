// One collection pass over everything an adapter discovered.
//
// Sessions are independent units of work: each is locked, landed and
// released on its own, so a problem in one (a conflict, a held lock) never
// stops the others, and the pass reports every problem rather than the first.

import path from 'node:path';
import { storedSessions } from '../landing/session-folder.ts';
import { collectSessions } from './collector.ts';
import type { SessionOutcome } from './outcome.ts';
import { quietSession } from './quiet-session.ts';
import { vanishedSession } from './vanished-sources.ts';
import { defaultThreads } from '../cores/work-on-cores.ts';
import { collectInParallel, PARALLEL_FROM_BYTES, pendingBytes } from './parallel.ts';
import type { Adapter, DiscoveredSession, Discovery, UnreadableSource } from '../adapters/adapter.ts';
import { rememberSessionsOfSource } from './source-sessions.ts';

export interface CollectAllOptions {
  readonly data: string;
  readonly adapter: Adapter;
  readonly discovery: Discovery;
  /** Which sessions to collect; a session left out is not touched at all. */
  readonly selected: (session: Pick<DiscoveredSession, 'id' | 'folders' | 'primary'>) => boolean;
  readonly onSession?: (outcome: SessionOutcome, done: number, total: number) => void;
  /** See CollectOptions.deriveSessionData. */
  readonly deriveSessionData?: boolean;
}

export interface CollectAllReport {
  readonly sessions: SessionOutcome[];
  readonly skipped: number;
}

/** One pass on this thread. */
export function collectAll(options: CollectAllOptions): CollectAllReport {
  const pass = passOf(options);
  collectSessions(pass.withWork(pass.plan.chosen), pass.plan.common, pass.report);
  return pass.finish();
}

export interface CoresOptions extends CollectAllOptions {
  /** Threads to collect on, the calling one included; by default one per core. */
  readonly workers?: number;
  /** The fewest new bytes for which workers are started; see PARALLEL_FROM_BYTES. */
  readonly parallelFromBytes?: number;
  /** See ParallelOptions.workersOnly. */
  readonly workersOnly?: boolean;
}

/** One pass, on every core when there is enough new data to pay for starting workers. */
export async function collectAllOnCores(options: CoresOptions): Promise<CollectAllReport> {
  const workers = options.workers ?? defaultThreads();
  const pass = passOf(options);
  // The new bytes that decide whether workers pay are counted over the
  // sessions with work alone: counted over every session, they read every
  // cursor of the history a second time.
  const busy = pass.withWork(pass.plan.chosen);
  if (workers < 2 || busy.length === 0 || pendingBytes(busy, options.data) < (options.parallelFromBytes ?? PARALLEL_FROM_BYTES)) {
    collectSessions(busy, pass.plan.common, pass.report);
  } else {
    await collectInParallel(busy, {
      data: options.data,
      sourceRoot: options.discovery.root,
      adapter: options.adapter,
      workers,
      workersOnly: options.workersOnly,
      deriveSessionData: options.deriveSessionData,
      onSession: pass.report,
    });
  }
  return pass.finish();
}

/**
 * A pass over the plan of `options`: its outcomes, reported as they come
 * (in the order sessions finish) and listed by session at the end.
 */
function passOf(options: CollectAllOptions) {
  const plan = planOf(options);
  const outcomes: SessionOutcome[] = [];
  const report = (outcome: SessionOutcome): void => {
    outcomes.push(outcome);
    options.onSession?.(outcome, outcomes.length, plan.total);
  };
  /** The sessions with work to do under their lock; those with nothing new are answered here, from reads alone (quietSession). */
  const withWork = (sessions: readonly DiscoveredSession[]): DiscoveredSession[] =>
    sessions.filter((session) => {
      const quiet = quietSession(session, plan.common);
      if (quiet) report(quiet);
      return quiet === undefined;
    });
  const finish = (): CollectAllReport => {
    collectSessions(withWork(plan.vanished.map(vanishedSession)), plan.common, report);
    const position = new Map([...plan.chosen.map((session) => session.id), ...plan.vanished].map((id, index) => [id, index]));
    outcomes.sort((a, b) => position.get(a.session)! - position.get(b.session)!);
    rememberSessionsOfSource(options.data, options.discovery.root, options.discovery.sessions.map((session) => session.id));
    return { sessions: outcomes, skipped: options.discovery.sessions.length - plan.chosen.length };
  };
  return { plan, report, withWork, finish };
}

interface Plan {
  readonly chosen: DiscoveredSession[];
  readonly vanished: string[];
  readonly total: number;
  readonly common: { data: string; adapter: Adapter; sourceRoot: string; deriveSessionData?: boolean };
}

function planOf(options: CollectAllOptions): Plan {
  const chosen = options.discovery.sessions.filter(options.selected);
  const discovered = new Set(options.discovery.sessions.map((session) => session.id));
  // A session whose every source was pruned is no longer discovered, but its
  // landed data is still here and its cursors should say the sources are gone.
  const vanished = storedSessions(options.data).filter((id) => !discovered.has(id) && options.selected({ id, folders: [] }));
  return {
    chosen,
    vanished,
    total: chosen.length + vanished.length,
    common: { data: options.data, adapter: options.adapter, sourceRoot: options.discovery.root, deriveSessionData: options.deriveSessionData },
  };
}

export function landedTotals(report: CollectAllReport): { files: number; records: number; bytes: number } {
  let files = 0;
  let records = 0;
  let bytes = 0;
  for (const session of report.sessions) {
    for (const source of session.sources) {
      for (const landed of source.landed) {
        files++;
        records += landed.records;
        bytes += landed.sourceBytes;
      }
    }
  }
  return { files, records, bytes };
}

/**
 * Every folder and file under the source root that a pass could not read,
 * by path: those discovery could not read, and the source files whose
 * collection failed on reading them. What they hold was not collected.
 */
export function unreadableSources(discovery: Discovery, report: CollectAllReport): UnreadableSource[] {
  const found = [...discovery.unreadable];
  for (const session of report.sessions) for (const source of session.sources) if (source.unreadable !== undefined) found.push({ path: path.join(discovery.root, source.source), error: source.unreadable });
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * What stopped part of a session from landing, one line each, naming the
 * session and the source: a conflict, a failure, another collector's lock, a
 * batch that could not be committed. Any of them makes a command exit 1, so
 * each must also be said, or the exit status is all a person would see.
 */
export function sessionErrors(session: SessionOutcome): string[] {
  const errors: string[] = [];
  if (session.locked !== undefined) errors.push(session.locked);
  for (const source of session.sources) if (source.status === 'conflict' || source.status === 'failed') errors.push(`${session.session} ${source.source}: ${source.message}`);
  errors.push(...session.unreadable);
  return errors;
}

/** What of a session could not be landed: a source, or the whole session when `source` is undefined, with why. */
export interface NotLanded {
  readonly session: string;
  readonly source: string | undefined;
  readonly message: string;
  /** The code of the write the file system refused, when that was why. */
  readonly refused: string | undefined;
}

/**
 * The sources of a session that could not be landed, and the session itself
 * when it could not be: a failure, not a conflict (which stops a source on
 * purpose, its landed data kept) nor another collector's lock (which lands it
 * meanwhile). An export that meets any keeps the earlier export
 * (export/pipeline.ts), since what it would export lacks what did not land.
 */
export function notLanded(session: SessionOutcome): NotLanded[] {
  const failed: NotLanded[] = [];
  if (session.failure !== undefined) failed.push({ session: session.session, source: undefined, message: session.failure, refused: session.refused });
  for (const source of session.sources) if (source.status === 'failed' && source.unreadable === undefined) failed.push({ session: session.session, source: source.source, message: source.message ?? 'it could not be landed', refused: source.refused });
  return failed;
}
