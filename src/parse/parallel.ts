// Parse on every core (cores/work-on-cores.ts). A session is assembled as a
// whole, and sessions share nothing: each worker thread assembles one at a
// time and appends its round.
//
// The calling thread parses nothing while workers do: its heap is the
// process's for the rest of the command (an export's site step runs beside
// it), and V8 neither caps nor gives back the young generation of the
// process's own thread, which a parse grew to its largest. A worker's heap
// is bounded (its resourceLimits) and goes with the worker.

import { WORKER_OLD_GENERATION_MB, workerModule, workOnCores } from '../cores/work-on-cores.ts';
import { refusedWriteCode } from '../files/write-failure.ts';
import { ChainError } from '../session-flow/chain.ts';
import { assemblyDue, parseSession, type ParseOptions, type ParseResult } from './parse.ts';
import { sessionsSummarisedElsewhere } from './summaries-elsewhere.ts';

/**
 * Below this many bytes of landed files to assemble, workers do not pay for
 * their start (bench/results/measurements-behind-choices.md gives the measurements it was set from).
 */
export const PARALLEL_PARSE_FROM_BYTES = 32 << 20;

/** What a parse of one session came to, as a thread can send it: small, whatever the round. */
export interface SessionParse {
  readonly session: string;
  /** The number of the round appended, when one was. */
  readonly round?: number;
  readonly unchanged: boolean;
  readonly throughSeq?: number;
  readonly changed?: ParseResult['changed'];
  /**
   * Why the session could not be parsed: a chain that refuses the round
   * (ChainError), or anything else; `refused` is the code of a write the
   * file system refused (a full disk), which is no fault of the session's.
   */
  readonly failure?: { readonly chain: boolean; readonly message: string; readonly refused?: string };
  /** Summaries the session's files hold of other sessions' records (summaries-elsewhere.ts), when it was assembled. */
  readonly summariesOfOthers?: ParseResult['summariesOfOthers'];
}

/** Parses one session; never throws: a failure is its outcome. */
export function parseOne(data: string, session: string, options: ParseOptions = {}): SessionParse {
  try {
    return outcomeOf(session, parseSession(data, session, options));
  } catch (error) {
    const refused = refusedWriteCode(error);
    return { session, unchanged: false, failure: { chain: error instanceof ChainError, message: (error as Error).message, ...(refused !== undefined ? { refused } : {}) } };
  }
}

function outcomeOf(session: string, parsed: ParseResult): SessionParse {
  return { session, round: parsed.round?.header.round, unchanged: parsed.unchanged, throughSeq: parsed.throughSeq, changed: parsed.changed, ...(parsed.summariesOfOthers !== undefined ? { summariesOfOthers: parsed.summariesOfOthers } : {}) };
}

/** What a parse of the session would assemble (parse.ts); a session this cannot tell is parsed on the calling thread, which names what is wrong. */
function dueOf(data: string, session: string): ReturnType<typeof assemblyDue> {
  try {
    return assemblyDue(data, session);
  } catch {
    return { bytes: 0 };
  }
}

/**
 * A parse worker's young generation, in megabytes: what an assembly makes
 * and keeps (a session's index, its structure) outlives a scavenge or two,
 * so V8 grew the worker's young generation to its largest, which then stayed
 * resident beside the old generation it was promoted to; capped, the
 * export's peak memory in the parse step fell by some 20-40 MB for the same
 * processor time (bench/results/measurements-behind-choices.md).
 */
const PARSE_WORKER_YOUNG_GENERATION_MB = 12;

export const PARSE_WORKER = workerModule('parse-worker', new URL('./worker.ts', import.meta.url));

/**
 * Parses the sessions, those with enough to assemble on `threads` worker
 * threads, the rest on the calling thread; resolves with one outcome per
 * session, in the order of `sessions`. Then parses again, on the calling thread, each stored
 * session whose records a summary in one of those assembled names
 * (summaries-elsewhere.ts), told with `onSummarisedElsewhere`; the outcome of
 * one of `sessions` then says what both parses did.
 */
export async function parseSessionsOnCores(
  data: string,
  sessions: readonly string[],
  options: {
    threads: number;
    parallelFromBytes?: number;
    /** The parse workers' module, PARSE_WORKER's: for tests. */
    worker?: ReturnType<typeof workerModule>;
    onSession?: (outcome: SessionParse) => void;
    onSummarisedElsewhere?: (outcome: SessionParse) => void;
  },
): Promise<SessionParse[]> {
  const outcomes = await parseEachOnCores(data, sessions, options);
  const held = outcomes.flatMap((outcome) => (outcome.summariesOfOthers !== undefined ? [outcome.summariesOfOthers] : []));
  if (held.length === 0) return outcomes;
  const bySession = new Map(outcomes.map((outcome) => [outcome.session, outcome]));
  for (const [session, summaries] of sessionsSummarisedElsewhere(data, held)) {
    const again = parseOne(data, session, { summariesElsewhere: summaries });
    options.onSummarisedElsewhere?.(again);
    const first = bySession.get(session);
    if (first !== undefined) bySession.set(session, bothParses(first, again));
  }
  return sessions.map((session) => bySession.get(session)!);
}

/** What a session's two parses did together: the later round, if either appended one, and every change. */
function bothParses(first: SessionParse, again: SessionParse): SessionParse {
  if (first.failure !== undefined) return first;
  if (again.failure !== undefined || again.round === undefined) return first;
  const sum = (a: SessionParse['changed'], b: SessionParse['changed']): SessionParse['changed'] => ({ written: (a?.written ?? 0) + (b?.written ?? 0), tombstones: (a?.tombstones ?? 0) + (b?.tombstones ?? 0), resolved: (a?.resolved ?? 0) + (b?.resolved ?? 0) });
  return { ...first, round: again.round, unchanged: false, throughSeq: again.throughSeq, changed: sum(first.changed, again.changed) };
}

async function parseEachOnCores(data: string, sessions: readonly string[], options: { threads: number; parallelFromBytes?: number; worker?: ReturnType<typeof workerModule>; onSession?: (outcome: SessionParse) => void }): Promise<SessionParse[]> {
  const weighed = sessions.map((session) => ({ session, ...dueOf(data, session) }));
  const total = weighed.reduce((sum, { bytes }) => sum + bytes, 0);
  const outcomes = new Map<string, SessionParse>();
  const report = (outcome: SessionParse): void => {
    outcomes.set(outcome.session, outcome);
    options.onSession?.(outcome);
  };
  // Those whose chain reads through every landed file are done already.
  for (const { session, unchanged } of weighed) if (unchanged) report(outcomeOf(session, unchanged));
  const toAssemble = weighed.filter(({ bytes }) => bytes > 0).sort((a, b) => b.bytes - a.bytes).map(({ session }) => session);
  if (options.threads >= 2 && total >= (options.parallelFromBytes ?? PARALLEL_PARSE_FROM_BYTES) && toAssemble.length > 1) {
    await workOnCores({
      items: toAssemble,
      threads: options.threads,
      workersOnly: true,
      name: 'the parse worker',
      worker: options.worker ?? PARSE_WORKER,
      task: { data },
      here: (taken, each) => {
        for (const session of taken) each(parseOne(data, session));
      },
      itemKey: (session) => session,
      outcomeKey: (outcome) => outcome.session,
      // Parsed again here, where the heap is not bounded: a parse never
      // throws (parseOne), so a worker that stopped ran out of its memory
      // (oldGenerationMb) or was stopped from outside.
      lost: (session) => parseOne(data, session),
      onOutcome: report,
      youngGenerationMb: PARSE_WORKER_YOUNG_GENERATION_MB,
      oldGenerationMb: WORKER_OLD_GENERATION_MB,
    });
  }
  // Every one left, when a single thread is faster, and any this could not weigh.
  for (const session of sessions) if (!outcomes.has(session)) report(parseOne(data, session));
  return sessions.map((session) => outcomes.get(session)!);
}
