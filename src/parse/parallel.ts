// Parse on every core (cores/work-on-cores.ts). A session is assembled as a
// whole, and sessions share nothing: each thread assembles one at a time and
// appends its round.

import { workerModule, workOnCores } from '../cores/work-on-cores.ts';
import { refusedWriteCode } from '../files/write-failure.ts';
import { ChainError } from '../session-flow/chain.ts';
import { assemblyDue, parseSession, type ParseResult } from './parse.ts';

/**
 * Below this many bytes of landed files to assemble, workers do not pay for
 * their start (docs/performance.md gives the measurements it was set from).
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
}

/** Parses one session; never throws: a failure is its outcome. */
export function parseOne(data: string, session: string): SessionParse {
  try {
    return outcomeOf(session, parseSession(data, session));
  } catch (error) {
    const refused = refusedWriteCode(error);
    return { session, unchanged: false, failure: { chain: error instanceof ChainError, message: (error as Error).message, ...(refused !== undefined ? { refused } : {}) } };
  }
}

function outcomeOf(session: string, parsed: ParseResult): SessionParse {
  return { session, round: parsed.round?.header.round, unchanged: parsed.unchanged, throughSeq: parsed.throughSeq, changed: parsed.changed };
}

/** What a parse of the session would assemble (parse.ts); a session this cannot tell is parsed on the calling thread, which names what is wrong. */
function dueOf(data: string, session: string): ReturnType<typeof assemblyDue> {
  try {
    return assemblyDue(data, session);
  } catch {
    return { bytes: 0 };
  }
}

export const PARSE_WORKER = workerModule('parse-worker', new URL('./worker.ts', import.meta.url));

/**
 * Parses the sessions, those with enough to assemble on `threads` threads
 * (the calling one included); resolves with one outcome per session, in the
 * order of `sessions`.
 */
export async function parseSessionsOnCores(data: string, sessions: readonly string[], options: { threads: number; parallelFromBytes?: number; onSession?: (outcome: SessionParse) => void }): Promise<SessionParse[]> {
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
      name: 'the parse worker',
      worker: PARSE_WORKER,
      task: { data },
      here: (taken, each) => {
        for (const session of taken) each(parseOne(data, session));
      },
      itemKey: (session) => session,
      outcomeKey: (outcome) => outcome.session,
      lost: (session, why) => ({ session, unchanged: false, failure: { chain: false, message: `${why} while it parsed this session; the next export parses it again` } }),
      onOutcome: report,
    });
  }
  // Every one left, when a single thread is faster, and any this could not weigh.
  for (const session of sessions) if (!outcomes.has(session)) report(parseOne(data, session));
  return sessions.map((session) => outcomes.get(session)!);
}
