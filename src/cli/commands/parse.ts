// `sessionizer parse [--data DIR] [SESSION]`: append a round to each changed
// chain, the sessions shared out between the cores (parse/parallel.ts) and
// printed in the order they were asked for, each as soon as it and those
// before it are done.

import path from 'node:path';
import { storedSessions } from '../../collection/collect-all.ts';
import { defaultThreads, inTheOrderOf } from '../../cores/work-on-cores.ts';
import { parseSessionsOnCores, type SessionParse } from '../../parse/parallel.ts';
import { EXIT_OK, EXIT_REJECTED, parseCommandArguments, type Io } from '../command.ts';
import { DEFAULT_DATA } from './collect.ts';

export async function parse(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArguments('parse', argv, { data: { type: 'string' }, json: { type: 'boolean' } }, 1);
  const data = path.resolve(values.data ?? DEFAULT_DATA);
  const stored = new Set(storedSessions(data));
  const asked = positionals[0] !== undefined ? [positionals[0]] : [...stored];
  let failed = false;
  for (const session of asked) {
    if (stored.has(session)) continue;
    io.error(`error: session ${session}: nothing is landed for it in ${data}\n`);
    failed = true;
  }
  const sessions = asked.filter((session) => stored.has(session));
  const say = inTheOrderOf(sessions, (outcome: SessionParse) => outcome.session, (parsed) => {
    if (parsed.failure !== undefined) io.error(`error: ${parsed.failure.chain ? '' : `session ${parsed.session}: `}${parsed.failure.message}\n`);
    else if (!values.json) io.out(parsed.round !== undefined ? `${parsed.session}: round ${parsed.round} through landed sequence ${parsed.throughSeq}: ${parsed.changed!.written} written, ${parsed.changed!.resolved} resolved, ${parsed.changed!.tombstones} removed\n` : `${parsed.session}: unchanged\n`);
  });
  const outcomes = await parseSessionsOnCores(data, sessions, { threads: defaultThreads(), onSession: say });
  if (outcomes.some((outcome) => outcome.failure !== undefined)) failed = true;
  if (values.json) {
    const results = outcomes.filter((outcome) => outcome.failure === undefined).map((outcome) => ({ session: outcome.session, conversation: outcome.session, round: outcome.round, through_seq: outcome.throughSeq, changed: outcome.changed }));
    io.out(`${JSON.stringify({ sessions: results })}\n`);
  }
  return failed ? EXIT_REJECTED : EXIT_OK;
}
