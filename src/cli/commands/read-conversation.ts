// The folded chain of a conversation for a command that shows it, or the
// error that says why there is none (exit 1): a broken chain, or no rounds.

import { ChainError, readChain, type Folded } from '../../session-flow/chain.ts';
import { line, type Io } from '../command.ts';

export function readConversation(data: string, id: string, io: Io): Folded | undefined {
  let folded: Folded;
  try {
    folded = readChain(data, id);
  } catch (error) {
    if (!(error instanceof ChainError)) throw error;
    io.error(line(`error: ${error.message}`));
    return undefined;
  }
  if (folded.rounds.length === 0) {
    io.error(line(`error: conversation ${id}: no rounds in ${data}; run sessionizer parse first`));
    return undefined;
  }
  return folded;
}
