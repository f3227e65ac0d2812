// `sessionizer parse [--data DIR] [SESSION]`: append a round to each changed
// chain, the sessions shared out between the cores (parse/parallel.ts) and
// printed in the order they were asked for, each as soon as it and those
// before it are done.

import { storedSessions } from '../../landing/session-folder.ts';
import { defaultThreads, inTheOrderOf } from '../../cores/work-on-cores.ts';
import { parseSessionsOnCores, type SessionParse } from '../../parse/parallel.ts';
import { command, DATA_OPTION, dataFolderOf, EXIT_OK, EXIT_REJECTED, line, SESSION_ID, type Given, type Io } from '../command.ts';

const OPTIONS = {
  data: DATA_OPTION,
  json: { type: 'boolean', description: 'print the rounds written as one line of JSON' },
} as const;

export const parse = command({
  name: 'parse',
  summary: 'append a round to each changed chain',
  operands: [{ name: 'SESSION', required: false, description: 'parse only this session (a session id); every stored session without it', shape: SESSION_ID }],
  options: OPTIONS,
  examples: ['sessionizer parse --data ~/sessionizer-data'],
  run: parseSessions,
});

async function parseSessions({ values, operands }: Given<typeof OPTIONS>, io: Io): Promise<number> {
  const data = dataFolderOf(values.data, 'write');
  const stored = new Set(storedSessions(data));
  const asked = operands[0] !== undefined ? [operands[0]] : [...stored];
  let failed = false;
  for (const session of asked) {
    if (stored.has(session)) continue;
    io.error(line(`error: session ${session}: nothing is landed for it in ${data}`));
    failed = true;
  }
  const sessions = asked.filter((session) => stored.has(session));
  const tell = (parsed: SessionParse, why = ''): void => {
    if (parsed.failure !== undefined) io.error(line(`error: ${parsed.failure.chain ? '' : `session ${parsed.session}: `}${parsed.failure.message}`));
    else if (!values.json) io.out(line(parsed.round !== undefined ? `${parsed.session}: round ${parsed.round} through landed sequence ${parsed.throughSeq}: ${parsed.changed!.written} written, ${parsed.changed!.resolved} resolved, ${parsed.changed!.tombstones} removed${why}` : `${parsed.session}: unchanged`));
  };
  const say = inTheOrderOf(sessions, (outcome: SessionParse) => outcome.session, (parsed) => tell(parsed));
  // Said only when a round was appended: a summary found again changes nothing.
  const summarised = (parsed: SessionParse): void => {
    if (parsed.failure !== undefined || parsed.round !== undefined) tell(parsed, ', as a summary in another session’s file names its records');
  };
  const outcomes = await parseSessionsOnCores(data, sessions, { threads: defaultThreads(), onSession: say, onSummarisedElsewhere: summarised });
  if (outcomes.some((outcome) => outcome.failure !== undefined)) failed = true;
  if (values.json) {
    const results = outcomes.filter((outcome) => outcome.failure === undefined).map((outcome) => ({ session: outcome.session, conversation: outcome.session, round: outcome.round, through_seq: outcome.throughSeq, changed: outcome.changed }));
    io.out(`${JSON.stringify({ sessions: results })}\n`);
  }
  return failed ? EXIT_REJECTED : EXIT_OK;
}
