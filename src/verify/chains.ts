// Verifies every round chain in a storage zone, and every branch record: rounds 1..N with no gap, each
// naming its predecessor's digest, each digest matching its bytes, each
// round reading on from exactly where the one before stopped, and each
// round's input digest what the landed files it covers give. The reading-on
// check is the one no digest can make: it catches skipped evidence (seed
// design-notes/02 §2.5); the input digest binds a round to the bytes of its
// evidence, which assembling again alone cannot, since a forged record may
// change nothing the structure holds.

import fs from 'node:fs';
import path from 'node:path';
import { listFolder } from '../files/folders.ts';
import { branchRecordFiles, checkBranchRecord } from '../branches/explicit.ts';
import { assemble } from '../parse/structure.ts';
import { summariesCarried } from '../assembly/conversation-names.ts';
import type { SessionIndex } from '../index/session-index.ts';
import { ChainError, checkInputDigests, checkLinks, foldedStructure, readChain, readRound, roundFiles, type Folded, type LandedDigest, type RoundHead } from '../session-flow/chain.ts';
import { BRANCH_RECORD_BYTES, pastBound, ROUND_BYTES } from './bounds.ts';
import type { Problem } from './storage.ts';

export function verifyChains(data: string, landed: ReadonlyMap<string, readonly LandedDigest[]>): { chains: number; rounds: number; problems: Problem[] } {
  const problems: Problem[] = [];
  const relative = (file: string): string => path.relative(data, file).split(path.sep).join('/');
  const conversations = listFolder(path.join(data, '_conversations')).filter((name) => fs.statSync(path.join(data, '_conversations', name)).isDirectory());
  let rounds = 0;
  for (const conversation of conversations) {
    const readable: RoundHead[] = [];
    for (const file of roundFiles(data, conversation)) {
      rounds++;
      const size = fs.statSync(file).size;
      if (size > ROUND_BYTES) {
        problems.push({ path: relative(file), what: `${pastBound(size, ROUND_BYTES, 'a round')}; it was not read` });
        continue;
      }
      try {
        // Its entities are read, as JSON, and not kept: the links need only its head.
        const { entities: _entities, ...head } = readRound(file, () => {});
        readable.push(head);
      } catch (error) {
        if (!(error instanceof ChainError)) throw error;
        problems.push({ path: relative(file), what: error.message.replace(`${file}: `, '') });
      }
    }
    for (const problem of [...checkLinks(readable), ...checkInputDigests(readable, (session) => landed.get(session) ?? [])]) {
      const [file, ...what] = problem.split(': ');
      problems.push({ path: relative(file!), what: what.join(': ') });
    }
    // Branch records are immutable and named by their digest.
    for (const file of branchRecordFiles(data, conversation)) {
      const size = fs.statSync(file).size;
      const branch = size > BRANCH_RECORD_BYTES ? { intact: false, problem: `${pastBound(size, BRANCH_RECORD_BYTES, 'a branch record')}; it was not read` } : checkBranchRecord(file, fs.readFileSync(file));
      if (!branch.intact) problems.push({ path: relative(file), what: branch.problem! });
    }
  }
  return { chains: conversations.length, rounds, problems };
}

/**
 * Every conversation of a storage zone assembled again from `indexes` (each
 * session's index, made from its `.sd` derived again) and compared with its
 * fold. A chain that cannot be read is left out: verifyChains reports it.
 */
export function verifyAssemblies(data: string, indexes: ReadonlyMap<string, SessionIndex>): Problem[] {
  const problems: Problem[] = [];
  for (const conversation of listFolder(path.join(data, '_conversations'))) {
    let folded: Folded;
    // A round past its bound is reported by verifyChains, and its chain is not folded.
    if (roundFiles(data, conversation).some((file) => fs.statSync(file).size > ROUND_BYTES)) continue;
    try {
      folded = readChain(data, conversation);
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      continue;
    }
    const mismatch = compareAssembly(conversation, folded, indexes);
    if (mismatch) problems.push({ path: `_conversations/${conversation}`, what: mismatch });
  }
  return problems;
}

/**
 * Assembles a conversation again from its session's index and compares it
 * with what its rounds fold to: the problem naming the first entity and field
 * that differ, with what the fold holds and what assembling again gives, or
 * undefined when they agree.
 */
export function compareAssembly(conversation: string, folded: Folded, indexes: ReadonlyMap<string, SessionIndex>): string | undefined {
  const head = folded.rounds.at(-1);
  if (!head) return undefined;
  // A session the zone holds no evidence of assembles to nothing, which the fold is then compared with.
  const session = head.header.session;
  const index = indexes.get(session) ?? { session, throughSeq: 0, files: [], entries: [] };
  // Summaries from other sessions' files are evidence the rounds carry (conversation-names.ts):
  // assembled again with them, and each checked against its session's evidence when that is here.
  const carried = summariesCarried([...folded.nodes.values()].find((node) => node.kind === 'session')?.attrs);
  for (const summary of carried) {
    const holder = indexes.get(summary.session);
    if (holder === undefined) continue;
    const record = holder.entries.find((entry) => entry.seq === summary.seq && entry.row === summary.row);
    if (record?.title !== 'summary' || record.leaf !== summary.leaf || record.label !== summary.summary) {
      return `its rounds carry a summary of record ${summary.leaf} from session ${summary.session}, landed sequence ${summary.seq} row ${summary.row}, which that session's evidence does not hold: ${JSON.stringify(summary.summary)}`;
    }
  }
  const structure = assemble(index, { conversation, throughSeq: head.header.through_seq, summariesElsewhere: carried });
  const fold = foldedStructure(folded);
  for (const kind of ['nodes', 'relations', 'unresolved'] as const) {
    const expected = new Map<string, unknown>(fold[kind].map((entity) => [entity.id, entity]));
    const found = new Map<string, unknown>(structure[kind].map((entity) => [entity.id, entity]));
    for (const [id, entity] of expected) {
      if (!found.has(id)) return `assembling its evidence again does not give the structure its rounds fold to: ${kind} ${id} is in the fold but not assembled again`;
      const difference = firstDifference(entity, found.get(id), '');
      if (difference) return `assembling its evidence again does not give the structure its rounds fold to: ${kind} ${id}, field ${difference.field || '(the whole entity)'} (expected ${difference.expected} as folded, found ${difference.found} assembled again)`;
    }
    for (const id of found.keys()) if (!expected.has(id)) return `assembling its evidence again does not give the structure its rounds fold to: ${kind} ${id} is assembled again but not in the fold`;
  }
  return undefined;
}

/** The first field at which two JSON values differ, by its path, with both values as JSON. */
function firstDifference(expected: unknown, found: unknown, field: string): { field: string; expected: string; found: string } | undefined {
  if (JSON.stringify(expected) === JSON.stringify(found)) return undefined;
  const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
  if (isRecord(expected) && isRecord(found) && Array.isArray(expected) === Array.isArray(found)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(found)])];
    for (const key of keys) {
      const inner = firstDifference(expected[key], found[key], Array.isArray(expected) ? `${field}[${key}]` : field ? `${field}.${key}` : key);
      if (inner) return inner;
    }
  }
  return { field, expected: JSON.stringify(expected) ?? 'nothing', found: JSON.stringify(found) ?? 'nothing' };
}
