// One parse of a session: assemble everything landed so far and append the
// difference to the conversation's round chain.
//
// Conversation identity is supplied, never inferred. With nothing supplied,
// the conversation is the session, which is the adapter's documented default
// and the only sound one: grouping sessions by person, folder or time would
// be a guess (seed design-notes/01 §1.6).

import fs from 'node:fs';
import path from 'node:path';
import { PARSER_VERSION, policyOf } from '../assembly/assemble.ts';
import { assemble } from './structure.ts';
import { loadSessionIndex } from '../index/session-index.ts';
import { landedFilesOfSession, type LandedFileEntry } from '../landing/session-state.ts';
import { sessionFolder } from '../landing/layout.ts';
import { removeLeftTemporaries } from '../files/process.ts';
import { appendRound, conversationFolder, readChain, readHeadHeader, type AppendResult } from '../session-flow/chain.ts';
import { summariesCarried, type SummaryElsewhere } from '../assembly/conversation-names.ts';
import { summariesOfOthers } from './summaries-elsewhere.ts';
import { CONVERTERS } from '../adapters/dialects.ts';
import { deriveAgain, outdatedSessionData, type Converter } from '../session-data/derive.ts';

export interface ParseOptions {
  readonly conversation?: string;
  readonly idleGap?: number;
  /**
   * Summaries found in other sessions' files that name records of this one
   * (summaries-elsewhere.ts). They join those its chain carries already, and
   * the session is assembled again even when no evidence of its own is new.
   */
  readonly summariesElsewhere?: readonly SummaryElsewhere[];
  /** The converters whose earlier generations' `.sd` are derived again: this build's, unless a test stands in for a build without them. */
  readonly converters?: readonly Converter[];
}

export interface ParseResult extends AppendResult {
  readonly conversation: string;
  readonly throughSeq: number;
  /** True when the chain already covered every landed file with this parser and policy, so nothing was assembled. */
  readonly unchanged: boolean;
  /** When the session was assembled: the summaries its files hold whose leaf is none of its records, and the project folders its files are in, for the session whose record it is. */
  readonly summariesOfOthers?: { readonly summaries: SummaryElsewhere[]; readonly projects: string[] };
}

export function parseSession(data: string, session: string, options: ParseOptions = {}): ParseResult {
  const conversation = options.conversation ?? session;
  const parser = PARSER_VERSION;
  const policy = policyOf(options);
  // A round is a pure function of the evidence through its through_seq and
  // of the parser and policy, and landed files are never rewritten. So a head
  // that already reads through the newest landed file, with this parser and
  // policy, from `.sd` of this build's converters, is what a full assembly
  // would give again: skip it, deciding from the head's first line, the
  // landed files' names and each `.sd`'s first line alone, without reading
  // the head round whole or the session's index.
  const { head, current, readsThrough, outdated } = chainOf(data, session, options);
  // Summaries found elsewhere are new evidence of another session's: they are read even when none of this one's is.
  const found = options.summariesElsewhere;
  if (readsThrough && found === undefined) return unchangedParse(conversation, head!.through_seq);
  removeLeftoversOfParse(data, session, conversation);
  // A .sd written by an earlier converter is derived again here, the one
  // step every parse and export takes before it reads a session's rows; its
  // rows may differ, so the index is made again and the session assembled
  // again, and a change of structure is a new round like any other. One that
  // cannot be derived again stays as it was, and verify notes it.
  const replaced = deriveAgain(outdated).derived;
  const index = loadSessionIndex(data, session, { rebuild: replaced > 0 });
  // A landed file whose .sd could not be derived yet is not in the index: the head may already read through all the index holds.
  if (current && head!.through_seq === index.throughSeq && found === undefined && replaced === 0) return unchangedParse(conversation, index.throughSeq);
  // The summaries found elsewhere before are in the chain, and stay: the file that holds one need not change again.
  const folded = readChain(data, conversation);
  const carried = summariesCarried([...folded.nodes.values()].find((node) => node.kind === 'session')?.attrs);
  const structure = assemble(index, { conversation, throughSeq: index.throughSeq, idleGap: options.idleGap, summariesElsewhere: [...carried, ...(found ?? [])] });
  const appended = appendRound(data, { conversation, session, structure, throughSeq: index.throughSeq, landed: index.files, parser, policy, folded });
  return { ...appended, conversation, throughSeq: index.throughSeq, unchanged: false, summariesOfOthers: summariesOfOthers(index) };
}

/**
 * The head of the session's chain, whether it was made by this parser and
 * policy, and whether it also reads through the newest landed file: then a
 * parse appends nothing unless a `.sd` was written by an earlier converter
 * (`outdated`), decided from the head's first line, the landed files' names
 * and each `.sd`'s first line alone.
 */
function chainOf(
  data: string,
  session: string,
  options: ParseOptions,
): { head: ReturnType<typeof readHeadHeader>; current: boolean; readsThrough: boolean; landed: LandedFileEntry[]; outdated: ReturnType<typeof outdatedSessionData> } {
  const head = readHeadHeader(data, options.conversation ?? session);
  const current = head !== undefined && head.parser === PARSER_VERSION && head.policy === policyOf(options);
  const landed = landedFilesOfSession(data, session);
  const outdated = outdatedSessionData(landed, options.converters ?? CONVERTERS);
  return { head, current, readsThrough: current && (landed.at(-1)?.seq ?? 0) === head.through_seq && outdated.length === 0, landed, outdated };
}

/**
 * Removes what a parse that died left half-written: the session's index and
 * the conversation's rounds and head, written under temporary names (atomic-file.ts)
 * by a process that has ended. A parse that died left its chain behind the
 * landed files, so the next parse of the session comes here.
 */
function removeLeftoversOfParse(data: string, session: string, conversation: string): void {
  const chain = conversationFolder(data, conversation);
  for (const folder of [sessionFolder(data, session), chain, path.join(chain, 'rounds')]) removeLeftTemporaries(folder);
}

function unchangedParse(conversation: string, throughSeq: number): ParseResult {
  return { changed: { written: 0, tombstones: 0, resolved: 0 }, conversation, throughSeq, unchanged: true };
}

/**
 * What a parse of the session would assemble: nothing when its chain reads
 * through every landed file already, with what the parse gives then; else
 * the bytes of every landed file, since assembly reads the whole session.
 */
export function assemblyDue(data: string, session: string, options: ParseOptions = {}): { bytes: number; unchanged?: ParseResult } {
  const { head, readsThrough, landed } = chainOf(data, session, options);
  if (readsThrough) return { bytes: 0, unchanged: unchangedParse(options.conversation ?? session, head!.through_seq) };
  return { bytes: landed.reduce((bytes, file) => bytes + fs.statSync(file.path).size, 0) };
}
