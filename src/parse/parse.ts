// One parse of a session: assemble everything landed so far and append the
// difference to the conversation's round chain.
//
// Conversation identity is supplied, never inferred. With nothing supplied,
// the conversation is the session, which is the adapter's documented default
// and the only sound one: grouping sessions by person, folder or time would
// be a guess (seed design-notes/01 §1.6).

import { assemble, PARSER_VERSION, policyOf } from '../assembly/assemble.ts';
import { loadSessionIndex } from '../index/session-index.ts';
import { appendRound, type AppendResult } from '../session-flow/chain.ts';

export interface ParseOptions {
  readonly conversation?: string;
  readonly idleGap?: number;
}

export interface ParseResult extends AppendResult {
  readonly conversation: string;
  readonly throughSeq: number;
}

export function parseSession(data: string, session: string, options: ParseOptions = {}): ParseResult {
  const conversation = options.conversation ?? session;
  const index = loadSessionIndex(data, session);
  const structure = assemble(index, { conversation, throughSeq: index.throughSeq, idleGap: options.idleGap });
  const appended = appendRound(data, { conversation, session, structure, throughSeq: index.throughSeq, landed: index.files, parser: PARSER_VERSION, policy: policyOf(options) });
  return { ...appended, conversation, throughSeq: index.throughSeq };
}
