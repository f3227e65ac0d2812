// Explicit branches: made by `sessionizer fork`, recorded, never applied to
// the evidence.
//
//   <data>/_conversations/<conversation>/branches/<name>-<digest12>.json   branch/1, immutable, 0444
//
// A branch record names its parent conversation and branch, its boundary and
// the boundary's kind, the head round it was cut from, and its provenance
// (tool and version, time, actor, reason). It also lists every tool use after
// the boundary on the parent path whose effect lives outside the
// conversation (shell, file writes and edits, network, MCP tools, child
// agents): a branch of the conversation does not roll those back. Nothing
// else on disk changes: rounds and other branches stay byte for byte.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeDuplicates } from '../assembly/duplicates.ts';
import { partitionStreams } from '../assembly/streams.ts';
import { loadSessionIndex, type IndexEntry } from '../index/session-index.ts';
import { writeOnce } from '../files/atomic-file.ts';
import { listFolder } from '../files/folders.ts';
import type { EvidenceRef } from '../model/structure.ts';
import { conversationFolder, readChain } from '../session-flow/chain.ts';
import { checkBoundary, sideEffectOf, type BoundaryKind, type BoundaryRule } from './boundary.ts';
import { ancestry, treeOf } from './tree.ts';
import { analyseBranches } from './natural.ts';

export const BRANCH_SCHEMA = 'branch/1';
export const TOOL = 'sessionizer/0.1.0';

export interface SideEffect {
  readonly tool_use: string;
  readonly name: string;
  readonly category: NonNullable<ReturnType<typeof sideEffectOf>>;
  readonly effect: 'irreversible: not rolled back';
  readonly ref: EvidenceRef;
}

export interface BranchRecord {
  readonly schema: typeof BRANCH_SCHEMA;
  readonly name: string;
  readonly conversation: string;
  readonly parent_branch: string;
  readonly boundary: { readonly event: string; readonly kind: BoundaryKind; readonly ref: EvidenceRef | null };
  readonly cut_from: { readonly round: number; readonly digest: string };
  readonly provenance: { readonly tool: string; readonly time: string; readonly actor: string; readonly reason: string };
  readonly side_effects: SideEffect[];
}

export class ForkRejected extends Error {
  constructor(
    readonly rule: BoundaryRule | 'name' | 'no_rounds',
    message: string,
  ) {
    super(message);
  }
}

// A branch name is a file name in the conversation's branches and labels
// folders: one plain name, never a path. Natural branches are named `active`
// and `from-<8>-<8>` (natural.ts), explicit ones by `fork --name`.
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** What a branch name may be, in words, for an error that refuses one. */
export const BRANCH_NAME_RULE = "letters, digits, '.', '_' or '-', starting with a letter or digit, at most 64";

/** Whether `name` can name a branch, natural or explicit. */
export function isBranchName(name: string): boolean {
  return NAME.test(name);
}

/** Whether `name` is one `fork` may give: natural branches keep `active` and `from-…`. */
export function isNewBranchName(name: string): boolean {
  return NAME.test(name) && name !== 'active' && !name.startsWith('from-');
}

export interface ForkOptions {
  readonly conversation: string;
  readonly session?: string;
  readonly at: string;
  readonly name?: string;
  readonly by?: string;
  readonly reason?: string;
  readonly allowToolClosed?: boolean;
  readonly now?: Date;
}

/** The main stream's canonical records and its natural branches, as the fork rules read them. */
export function mainStreamOf(data: string, session: string) {
  return mainStreamOfEntries(loadSessionIndex(data, session).entries);
}

/** The same, from index entries already in hand. */
export function mainStreamOfEntries(entries: readonly IndexEntry[]) {
  const canonical = removeDuplicates([...entries]).canonical;
  const main = partitionStreams(canonical).streams.get('main');
  return { canonical, records: main?.records ?? [] };
}

export function fork(data: string, options: ForkOptions): { record: BranchRecord; file: string } {
  const session = options.session ?? options.conversation;
  const head = readChain(data, options.conversation).rounds.at(-1);
  if (!head) throw new ForkRejected('no_rounds', `conversation ${options.conversation} has no rounds yet; run sessionizer parse first`);
  const { canonical, records } = mainStreamOf(data, session);
  const tree = treeOf(records);
  const check = checkBoundary(tree, canonical, options.at, { allowToolClosed: options.allowToolClosed });
  if (!check.valid) {
    throw new ForkRejected(check.rule, `cannot fork at ${options.at}: ${check.rule}: ${check.why}.${check.nearest ? ` The nearest valid boundary is ${check.nearest.id} (${check.nearest.kind}).` : ''}`);
  }
  const name = options.name ?? `fork-${options.at === 'root' ? 'root' : options.at.replace(/[^A-Za-z0-9]/g, '').slice(0, 8)}`;
  if (!isNewBranchName(name)) throw new ForkRejected('name', `branch name ${JSON.stringify(name)} must be ${BRANCH_NAME_RULE}, and not 'active' or 'from-…', which natural branches use`);
  if (explicitBranches(data, options.conversation).some((branch) => branch.record.name === name)) throw new ForkRejected('name', `conversation ${options.conversation} already has a branch named ${name}`);

  // The parent path: the natural branch the boundary lies on, and the tool
  // uses after the boundary along it.
  const natural = analyseBranches(records);
  const parent = check.boundary === undefined ? natural.branches.find((branch) => branch.active) : natural.branches.find((branch) => branch.path.includes(check.boundary!)) ?? natural.branches.find((branch) => branch.active);
  const parentPath = parent ? (() => {
    const full = ancestry(tree, parent.tip);
    return typeof full === 'string' ? [] : full;
  })() : [];
  const after = check.boundary === undefined ? parentPath : parentPath.slice(parentPath.indexOf(check.boundary) + 1);
  const side_effects: SideEffect[] = [];
  for (const entry of after) {
    for (const call of entry.calls) {
      const category = sideEffectOf(call.name);
      if (category) side_effects.push({ tool_use: call.id, name: call.name, category, effect: 'irreversible: not rolled back', ref: { seq: entry.seq, row: entry.row } });
    }
  }
  const record: BranchRecord = {
    schema: BRANCH_SCHEMA,
    name,
    conversation: options.conversation,
    parent_branch: parent?.name ?? 'active',
    boundary: { event: options.at, kind: check.kind, ref: check.boundary ? { seq: check.boundary.seq, row: check.boundary.row } : null },
    cut_from: { round: head.header.round, digest: head.commit.digest },
    provenance: {
      tool: TOOL,
      time: (options.now ?? new Date()).toISOString(),
      actor: options.by ?? process.env.SESSIONIZER_ACTOR ?? process.env.USER ?? os.userInfo().username,
      reason: options.reason ?? '',
    },
    side_effects,
  };
  const bytes = `${JSON.stringify(record, null, 2)}\n`;
  const digest = crypto.createHash('sha256').update(bytes).digest('hex');
  const file = path.join(branchesFolder(data, options.conversation), `${name}-${digest.slice(0, 12)}.json`);
  writeOnce(file, bytes);
  return { record, file };
}

export function branchesFolder(data: string, conversation: string): string {
  return path.join(conversationFolder(data, conversation), 'branches');
}

const RECORD_NAME = /^(.+)-([0-9a-f]{12})\.json$/;

/** Every explicit branch of a conversation, each checked against the digest in its name. */
export function explicitBranches(data: string, conversation: string): { file: string; record: BranchRecord; intact: boolean; problem?: string }[] {
  return branchRecordFiles(data, conversation).map((file) => checkBranchRecord(file, fs.readFileSync(file)));
}

/** The files of a conversation's branch records, by name. */
export function branchRecordFiles(data: string, conversation: string): string[] {
  const folder = branchesFolder(data, conversation);
  return listFolder(folder)
    .filter((name) => RECORD_NAME.test(name))
    .sort()
    .map((name) => path.join(folder, name));
}

/** Checks one branch record's bytes against the digest and name its file name carries. */
export function checkBranchRecord(file: string, bytes: Buffer): { file: string; record: BranchRecord; intact: boolean; problem?: string } {
  const name = path.basename(file);
  const named = RECORD_NAME.exec(name);
  const digest = crypto.createHash('sha256').update(bytes).digest('hex');
  let record: BranchRecord;
  try {
    record = JSON.parse(bytes.toString('utf8')) as BranchRecord;
  } catch {
    return { file, record: { name: named?.[1] ?? name } as BranchRecord, intact: false, problem: 'it is not JSON' };
  }
  if (!named) return { file, record, intact: false, problem: 'its name is not <branch>-<digest12>.json' };
  if (record.schema !== BRANCH_SCHEMA) return { file, record, intact: false, problem: `it is not a ${BRANCH_SCHEMA} record` };
  if (digest.slice(0, 12) !== named[2]) return { file, record, intact: false, problem: `its bytes do not match the digest in its name (found ${digest.slice(0, 12)})` };
  if (record.name !== named[1]) return { file, record, intact: false, problem: `it names itself ${record.name}, not ${named[1]}` };
  return { file, record, intact: true };
}

/** The records of a branch, root to its end: a natural branch to its tip, an explicit one to its boundary. Fails closed. */
export function branchPath(data: string, conversation: string, name: string, session = conversation): IndexEntry[] {
  const { records } = mainStreamOf(data, session);
  const tree = treeOf(records);
  const natural = analyseBranches(records).branches.find((branch) => branch.name === name);
  const end = natural ? natural.tip : (() => {
    const explicit = explicitBranches(data, conversation).find((branch) => branch.record.name === name);
    if (!explicit) throw new ForkRejected('exists', `conversation ${conversation} has no branch named ${name}`);
    if (!explicit.intact) throw new ForkRejected('exists', `the record of branch ${name} is damaged: ${explicit.problem}`);
    const event = explicit.record.boundary.event;
    if (event === 'root') return undefined;
    const found = tree.byId.get(event);
    if (!found) throw new ForkRejected('exists', `branch ${name} starts at ${event}, which is no longer in the evidence`);
    return found;
  })();
  if (end === undefined) return [];
  const path = ancestry(tree, end);
  if (typeof path === 'string') throw new ForkRejected('ancestry', `branch ${name} cannot be projected: ${path}`);
  return path;
}
