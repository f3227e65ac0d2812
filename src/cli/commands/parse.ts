// `sessionizer parse [--data DIR] [SESSION]`: append a round to each changed chain.

import path from 'node:path';
import { storedSessions } from '../../collection/collect-all.ts';
import { ChainError } from '../../session-flow/chain.ts';
import { parseSession } from '../../parse/parse.ts';
import { EXIT_OK, EXIT_REJECTED, parseCommandArguments, type Io } from '../command.ts';
import { DEFAULT_DATA } from './collect.ts';

export function parse(argv: string[], io: Io): number {
  const { values, positionals } = parseCommandArguments('parse', argv, { data: { type: 'string' }, json: { type: 'boolean' } }, 1);
  const data = path.resolve(values.data ?? DEFAULT_DATA);
  const stored = new Set(storedSessions(data));
  const sessions = positionals[0] !== undefined ? [positionals[0]] : [...stored];
  let failed = false;
  const results = [];
  for (const session of sessions) {
    if (!stored.has(session)) {
      io.error(`error: session ${session}: nothing is landed for it in ${data}\n`);
      failed = true;
      continue;
    }
    try {
      const result = parseSession(data, session);
      results.push({ session, conversation: result.conversation, round: result.round?.header.round, through_seq: result.throughSeq, changed: result.changed });
      if (!values.json) {
        io.out(
          result.round
            ? `${session}: round ${result.round.header.round} through landed sequence ${result.throughSeq}: ${result.changed.written} written, ${result.changed.resolved} resolved, ${result.changed.tombstones} removed\n`
            : `${session}: unchanged\n`,
        );
      }
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      io.error(`error: ${error.message}\n`);
      failed = true;
    }
  }
  if (values.json) io.out(`${JSON.stringify({ sessions: results })}\n`);
  return failed ? EXIT_REJECTED : EXIT_OK;
}
