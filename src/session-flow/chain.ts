// The round chain of one conversation: reading, folding, appending, checking.
//
//   <data>/_conversations/<conversation>/rounds/r000001-<digest12>.sf   immutable, 0444
//   <data>/_conversations/<conversation>/conversation.state              head pointer, outside every digest
//
// A round is the difference between the fold of the rounds before it and a
// full assembly of the evidence through its `through_seq`: new and changed
// entities whole, tombstones for what is gone, and an unresolved reference
// that resolved superseded with state `resolved` rather than removed (absence
// would be indistinguishable from never noticed). The filesystem is the
// authority on the head: a crash between writing a round and saving the state
// leaves a round the state does not mention, so the head is found by listing.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { replaceWithoutFlush, writeOnce } from '../files/atomic-file.ts';
import { firstLine, LineTooLongError, readLines, withOpenFile, type LineReading } from '../files/line-reader.ts';
import { listFolder } from '../files/folders.ts';
import { formatState } from '../landing/state-text.ts';
import { SESSION_FLOW_SCHEMA, type CommitFrame, type EntityFrame, type RoundHeader } from './format.ts';
import { type FlowNode, type FlowRelation, type FlowUnresolved, type Structure } from '../model/structure.ts';

export function conversationFolder(data: string, conversation: string): string {
  return path.join(data, '_conversations', conversation);
}

/** What links a round into its chain: its header and commit, without its entities. */
export interface RoundHead {
  readonly file: string;
  readonly header: RoundHeader;
  readonly commit: CommitFrame;
}

export interface Round extends RoundHead {
  readonly entities: EntityFrame[];
}

export class ChainError extends Error {}

const ROUND_NAME = /^r(\d{6,})-([0-9a-f]{12})\.sf$/;

/**
 * The longest line a round may have, far past any the tool writes: a node
 * frame holds its evidence references and a few attributes, a few kilobytes
 * at most. A longer line ends the reading of the round, so that reading one
 * takes memory bounded by this whatever the file holds.
 */
export const LONGEST_ROUND_LINE = 64 << 20;

/**
 * Reads one round line by line, checking that its digest matches its bytes.
 * `entities` is told each entity frame as it is read; without it they are
 * kept in the round. `digested`, when given, is told the SHA-256 of the
 * whole file.
 */
export function readRound(file: string, entities?: (frame: EntityFrame) => void, digested?: (sha256: string) => void): Round {
  const round = new RoundLines(file, entities);
  const whole = digested && crypto.createHash('sha256');
  const reading: LineReading = { trailingBytes: 0 };
  withOpenFile(file, (descriptor) => {
    try {
      for (const line of readLines(descriptor, 0, fs.fstatSync(descriptor).size, reading, undefined, LONGEST_ROUND_LINE)) {
        whole?.update(line.bytes).update(NEWLINE);
        round.line(line.bytes);
      }
    } catch (error) {
      if (!(error instanceof LineTooLongError)) throw error;
      throw new ChainError(`${file}: line ${round.lines + 1} is longer than ${LONGEST_ROUND_LINE} bytes, the longest line a round may have; the rest of the round was not read`);
    }
  });
  if (whole) {
    for (const piece of reading.trailing ?? []) whole.update(piece);
    digested!(whole.digest('hex'));
  }
  return round.end(reading.trailingBytes);
}

/** Parses one round's bytes, named `file`; the same checks as readRound, for bytes held in memory (an archive). */
export function parseRound(bytes: Buffer, file: string): Round {
  const round = new RoundLines(file);
  let start = 0;
  for (let newline = bytes.indexOf(0x0a); newline >= 0; newline = bytes.indexOf(0x0a, start)) {
    round.line(bytes.subarray(start, newline));
    start = newline + 1;
  }
  return round.end(bytes.length - start);
}

const NEWLINE = Buffer.from('\n');

/**
 * A round read line by line (readRound, parseRound, and an archive as it
 * streams past): the header is its first line, the commit its
 * last, and the digest covers every byte before the last. Since a line is
 * known to be the last only when no other follows, each line waits, copied,
 * until the next one comes. The checks are made in the order a reader of the
 * whole round would make them: the newline at its end, its lines as JSON
 * (header, commit, entities), the header, the commit, the digest, the name.
 */
export class RoundLines {
  lines = 0;
  private readonly hash = crypto.createHash('sha256');
  private pending: Buffer | undefined;
  private header: unknown;
  private headerError: Error | undefined;
  private entityError: Error | undefined;
  private readonly entities: EntityFrame[] = [];

  constructor(
    private readonly file: string,
    private readonly onEntity?: (frame: EntityFrame) => void,
  ) {}

  /** The next line, without its newline; valid only during the call. */
  line(bytes: Buffer): void {
    this.lines++;
    if (this.pending !== undefined) {
      this.hash.update(this.pending).update(NEWLINE);
      // Every line but the first and the last is an entity frame.
      if (this.lines > 2 && this.entityError === undefined) {
        try {
          const frame = JSON.parse(this.pending.toString('utf8')) as EntityFrame;
          if (this.onEntity) this.onEntity(frame);
          else this.entities.push(frame);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          this.entityError = error;
        }
      }
    }
    this.pending = Buffer.from(bytes);
    if (this.lines === 1) {
      try {
        this.header = JSON.parse(this.pending.toString('utf8'));
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        this.headerError = error;
      }
    }
  }

  /** The round, once every line is read; `trailingBytes` is what came after the last newline. */
  end(trailingBytes: number): Round {
    const file = this.file;
    if (this.pending === undefined || trailingBytes > 0) throw new ChainError(`${file}: the round does not end with a newline; it is cut short`);
    const notJson = (error: Error): ChainError => new ChainError(`${file}: a line is not JSON (${error.message})`);
    if (this.headerError) throw notJson(this.headerError);
    let commit: CommitFrame;
    try {
      commit = (this.lines === 1 ? this.header : JSON.parse(this.pending.toString('utf8'))) as CommitFrame;
    } catch (error) {
      throw notJson(error as Error);
    }
    if (this.entityError) throw notJson(this.entityError);
    const header = this.header as RoundHeader;
    if (header?.t !== 'header' || header.schema !== SESSION_FLOW_SCHEMA) throw new ChainError(`${file}: the first line is not an ${SESSION_FLOW_SCHEMA} header`);
    if (commit?.t !== 'commit') throw new ChainError(`${file}: the last line is not a commit`);
    const digest = this.hash.digest('hex');
    if (digest !== commit.digest) throw new ChainError(`${file}: its bytes do not match its commit digest (expected ${commit.digest}, found ${digest})`);
    const named = ROUND_NAME.exec(path.basename(file));
    if (!named || Number(named[1]) !== header.round || named[2] !== digest.slice(0, 12)) throw new ChainError(`${file}: its name does not match round ${header.round} and digest ${digest.slice(0, 12)}`);
    return { file, header, entities: this.entities, commit };
  }
}

/** The round files of a conversation, in round order. */
export function roundFiles(data: string, conversation: string): string[] {
  const folder = path.join(conversationFolder(data, conversation), 'rounds');
  return listFolder(folder)
    .filter((name) => ROUND_NAME.test(name))
    .sort((a, b) => Number(ROUND_NAME.exec(a)![1]) - Number(ROUND_NAME.exec(b)![1]))
    .map((name) => path.join(folder, name));
}

/**
 * The header of a conversation's newest round: its first line only, without
 * the rounds before it or its own entities, which may be tens of megabytes
 * for a long session. What it says is checked where the chain is read
 * (readChain, verify); here it only decides whether there is work to do.
 */
export function readHeadHeader(data: string, conversation: string): RoundHeader | undefined {
  const last = roundFiles(data, conversation).at(-1);
  if (last === undefined) return undefined;
  const first = withOpenFile(last, (descriptor) => firstLine(descriptor, fs.fstatSync(descriptor).size)?.toString('utf8'));
  if (first === undefined) throw new ChainError(`${last}: the round has no header line`);
  let header: RoundHeader;
  try {
    header = JSON.parse(first) as RoundHeader;
  } catch (error) {
    throw new ChainError(`${last}: line 1 is not JSON (${(error as Error).message})`);
  }
  if (header.t !== 'header' || header.schema !== SESSION_FLOW_SCHEMA) throw new ChainError(`${last}: the first line is not an ${SESSION_FLOW_SCHEMA} header`);
  return header;
}

export interface Folded {
  /** Every round's head, in order; the entities live only in the fold, so a long chain costs no more memory than its result. */
  readonly rounds: RoundHead[];
  readonly nodes: Map<string, EntityFrame & { t: 'node' }>;
  readonly relations: Map<string, EntityFrame & { t: 'relation' }>;
  readonly unresolved: Map<string, EntityFrame & { t: 'unresolved' }>;
}

/**
 * Reads and checks every round of a conversation, in order, and folds them:
 * last writer wins per id, whole; a tombstone removes. One round is held at a
 * time, since a conversation parsed while it runs gains a round every pass and
 * its chain grows without bound while its fold does not.
 */
export function readChain(data: string, conversation: string): Folded {
  return foldRounds(roundFiles(data, conversation));
}

/**
 * Folds the rounds in `files` into `folded` (empty unless given: rounds
 * before them, already folded), then checks every link of the chain.
 * `digested` is told the SHA-256 of each round's file as it is folded.
 */
export function foldRounds(files: readonly string[], folded: Folded = emptyFold(), digested?: (file: string, sha256: string) => void): Folded {
  for (const file of files) foldRound(folded, readRound(file, undefined, digested && ((sha256) => digested(file, sha256))));
  const problems = checkLinks(folded.rounds);
  if (problems.length > 0) throw new ChainError(problems.join('; '));
  return folded;
}

export function emptyFold(): Folded {
  return { rounds: [], nodes: new Map(), relations: new Map(), unresolved: new Map() };
}

/** Folds the next round in: last writer wins per id, whole; a tombstone removes. Only its head is kept. */
export function foldRound(folded: Folded, round: Round): void {
  const { entities, ...head } = round;
  for (const frame of entities) {
    const map = (frame.t === 'node' ? folded.nodes : frame.t === 'relation' ? folded.relations : folded.unresolved) as Map<string, EntityFrame>;
    if (frame.tombstone) map.delete(frame.id);
    else map.set(frame.id, frame);
  }
  folded.rounds.push(head);
}

/** Every broken link between rounds: a gap, a wrong predecessor digest, skipped evidence. */
export function checkLinks(rounds: readonly RoundHead[]): string[] {
  const problems: string[] = [];
  rounds.forEach((round, index) => {
    const previous = rounds[index - 1];
    if (round.header.round !== index + 1) problems.push(`${round.file}: it is round ${round.header.round}, expected ${index + 1} (a round is missing before it)`);
    const expectedPrevious = previous?.commit.digest ?? null;
    if (round.header.previous !== expectedPrevious) problems.push(`${round.file}: it names ${round.header.previous ?? 'no round'} as its predecessor, expected ${expectedPrevious ?? 'none'}`);
    const expectedFrom = (previous?.header.through_seq ?? 0) + 1;
    if (round.header.from_seq !== expectedFrom) problems.push(`${round.file}: it reads from landed sequence ${round.header.from_seq}, expected ${expectedFrom} (evidence would be skipped or read twice)`);
    if (round.header.through_seq < round.header.from_seq - 1) problems.push(`${round.file}: through_seq ${round.header.through_seq} is before from_seq ${round.header.from_seq}`);
  });
  return problems;
}

/** A landed file as a round's input digest reads it: its sequence and its SHA-256. */
export interface LandedDigest {
  readonly seq: number;
  readonly digest: string;
}

/**
 * Every round, of one chain in round order, whose input digest is not what
 * the landed files it covers give. `landedOf` is a session's landed files as
 * they are now; each round is checked against the input digest its
 * predecessor states, so a forged round is named alone.
 */
export function checkInputDigests(rounds: readonly RoundHead[], landedOf: (session: string) => readonly LandedDigest[]): string[] {
  const problems: string[] = [];
  // Each session's landed files in sequence order, once: a round's range is then a slice, not a scan of them all.
  const bySession = new Map<string, readonly LandedDigest[]>();
  const sortedOf = (session: string): readonly LandedDigest[] => {
    let sorted = bySession.get(session);
    if (!sorted) bySession.set(session, (sorted = [...landedOf(session)].sort((a, b) => a.seq - b.seq)));
    return sorted;
  };
  const firstAtOrAfter = (sorted: readonly LandedDigest[], seq: number): number => {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sorted[middle]!.seq < seq) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  rounds.forEach((round, index) => {
    const { header } = round;
    const previous = rounds[index - 1];
    // After a broken link (checkLinks names it) the digest to chain to is unknown.
    if (header.previous !== (previous?.commit.digest ?? null)) return;
    const sorted = sortedOf(header.session);
    const covered = sorted.slice(firstAtOrAfter(sorted, header.from_seq), firstAtOrAfter(sorted, header.through_seq + 1));
    const expected = digestOfInputs(previous?.header.input_digest, covered);
    if (header.input_digest !== expected) {
      problems.push(`${round.file}: its input digest is ${header.input_digest}, but the landed files it covers (sequences ${header.from_seq} to ${header.through_seq} of session ${header.session}) give ${expected}`);
    }
  });
  return problems;
}

/**
 * Whether a frame of the chain holds `entity` as it is, past the frame's own
 * `t` and `revision`: what comparing the JSON text of the two would say (the
 * same keys in the same order, with equal values; a key whose value is
 * undefined is no key), without writing either text: every entity of a
 * conversation is compared at each parse, and most are unchanged.
 */
function sameContent(frame: EntityFrame, entity: FlowNode | FlowRelation | FlowUnresolved): boolean {
  return sameJson(frame, entity, FRAME_KEYS);
}

const FRAME_KEYS = new Set(['t', 'revision']);
const NO_KEYS = new Set<string>();

function sameJson(a: unknown, b: unknown, skipped: ReadonlySet<string> = NO_KEYS): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    // Unequal primitives: the same text only for such as NaN and null, or undefined and a function.
    return typeof a !== 'string' && typeof b !== 'string' && JSON.stringify(a) === JSON.stringify(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!sameJson(a[index] ?? null, b[index] ?? null)) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < leftKeys.length && (skipped.has(leftKeys[i]!) || left[leftKeys[i]!] === undefined)) i++;
    while (j < rightKeys.length && right[rightKeys[j]!] === undefined) j++;
    if (i === leftKeys.length || j === rightKeys.length) return i === leftKeys.length && j === rightKeys.length;
    const key = leftKeys[i]!;
    if (key !== rightKeys[j] || !sameJson(left[key], right[key])) return false;
    i++;
    j++;
  }
}

export interface AppendInput {
  readonly conversation: string;
  readonly session: string;
  readonly structure: Structure;
  readonly throughSeq: number;
  /** SHA-256 of each landed file, by sequence; the round binds those from from_seq to through_seq. */
  readonly landed: readonly LandedDigest[];
  readonly parser: string;
  readonly policy: string;
  /** The chain as folded, when the caller has read it already (readChain): it is not read again. */
  readonly folded?: Folded;
}

/**
 * What a round read: the SHA-256 of the landed files from `fromSeq` to
 * `throughSeq`, chained to the input digest of the round before (`previous`,
 * none for the first). Chained, so that it binds everything before it at a
 * cost proportional to what is new; the digests sorted, since listing order is
 * not stable. Parse writes it and verify computes it again from the landed
 * files it holds.
 */
export function inputDigest(previous: string | undefined, landed: readonly LandedDigest[], fromSeq: number, throughSeq: number): string {
  return digestOfInputs(previous, landed.filter((file) => file.seq >= fromSeq && file.seq <= throughSeq));
}

/** The input digest over `covered`, the landed files of one round's range. */
function digestOfInputs(previous: string | undefined, covered: readonly LandedDigest[]): string {
  const read = covered.map((file) => file.digest);
  return crypto
    .createHash('sha256')
    .update([previous ?? '', ...read.sort()].join('\n'))
    .digest('hex');
}

export interface AppendResult {
  readonly round?: Round;
  readonly changed: { readonly written: number; readonly tombstones: number; readonly resolved: number };
}

/**
 * Appends one round when there is new evidence or a changed entity. The
 * bytes depend only on the chain, the evidence and the versions: no clock.
 */
export function appendRound(data: string, input: AppendInput, now: Date = new Date()): AppendResult {
  const folded = input.folded ?? readChain(data, input.conversation);
  const head = folded.rounds[folded.rounds.length - 1];
  // A newer parser reads the same evidence better: its round is the
  // difference from what the older one folded to, so the chain keeps every
  // earlier round and the fold becomes the newer assembly. A policy is the
  // person's choice of meaning (an idle gap) and is never mixed in one chain.
  if (head && head.header.policy !== input.policy) {
    throw new ChainError(
      `conversation ${input.conversation}: its chain was built by ${head.header.parser} with ${head.header.policy}; this build is ${input.parser} with ${input.policy}. A change of meaning starts a new chain: move ${conversationFolder(data, input.conversation)} aside to begin one`,
    );
  }
  const throughBefore = head?.header.through_seq ?? 0;
  if (input.throughSeq < throughBefore) throw new ChainError(`conversation ${input.conversation}: the chain has read through landed sequence ${throughBefore}, but the evidence now ends at ${input.throughSeq}`);
  const round = (head?.header.round ?? 0) + 1;
  const frames: EntityFrame[] = [];
  let tombstones = 0;
  let resolved = 0;
  const diff = <T extends FlowNode | FlowRelation | FlowUnresolved>(t: EntityFrame['t'], current: T[], previous: Map<string, EntityFrame>): void => {
    const present = new Set<string>();
    for (const entity of current) {
      present.add(entity.id);
      const before = previous.get(entity.id);
      if (!before || !sameContent(before, entity)) frames.push({ t, revision: round, ...entity } as unknown as EntityFrame);
    }
    for (const [id, before] of previous) {
      if (present.has(id)) continue;
      if (t === 'unresolved') {
        if ((before as EntityFrame & { state?: string }).state === 'resolved') continue;
        const { t: _t, revision: _revision, ...rest } = before as EntityFrame & Record<string, unknown>;
        frames.push({ t, revision: round, ...rest, state: 'resolved' } as unknown as EntityFrame);
        resolved++;
      } else {
        frames.push({ t, id, revision: round, tombstone: true } as EntityFrame);
        tombstones++;
      }
    }
  };
  diff('node', input.structure.nodes, folded.nodes);
  diff('relation', input.structure.relations, folded.relations);
  diff('unresolved', input.structure.unresolved, folded.unresolved);
  // A new parser is recorded even when it changes nothing, so that the head
  // says which build's assembly the fold is.
  if (frames.length === 0 && input.throughSeq === throughBefore && head?.header.parser === input.parser) return { changed: { written: 0, tombstones: 0, resolved: 0 } };

  frames.sort((a, b) => (a.t === b.t ? compare(a.id, b.id) : ORDER[a.t] - ORDER[b.t]));
  const header: RoundHeader = {
    t: 'header',
    schema: SESSION_FLOW_SCHEMA,
    conversation: input.conversation,
    session: input.session,
    round,
    previous: head?.commit.digest ?? null,
    from_seq: throughBefore + 1,
    through_seq: input.throughSeq,
    input_digest: inputDigest(head?.header.input_digest, input.landed, throughBefore + 1, input.throughSeq),
    parser: input.parser,
    policy: input.policy,
  };
  // Hashed and written line by line: the round of a large session is megabytes, which joined would be held again as one string and as its bytes.
  const lines = [header, ...frames].map((frame) => `${JSON.stringify(frame)}\n`);
  const hash = crypto.createHash('sha256');
  for (const line of lines) hash.update(line);
  const digest = hash.digest('hex');
  const counts = {
    nodes: frames.filter((frame) => frame.t === 'node' && !frame.tombstone).length,
    relations: frames.filter((frame) => frame.t === 'relation' && !frame.tombstone).length,
    unresolved: frames.filter((frame) => frame.t === 'unresolved').length,
    tombstones,
  };
  const commit: CommitFrame = { t: 'commit', digest, counts };
  const file = path.join(conversationFolder(data, input.conversation), 'rounds', `r${String(round).padStart(6, '0')}-${digest.slice(0, 12)}.sf`);
  lines.push(`${JSON.stringify(commit)}\n`);
  writeOnce(file, lines);
  // The head pointer says what the rounds folder says, and nothing reads it
  // back (readChain takes the head from the rounds on disk): it is not
  // flushed, and a crash that loses it loses nothing.
  replaceWithoutFlush(path.join(conversationFolder(data, input.conversation), 'conversation.state'), formatState([
    ['schema', 1],
    ['head', round],
    ['head_digest', digest],
    ['through_seq', input.throughSeq],
    ['updated_at', now.toISOString()],
  ]));
  return { round: { file, header, entities: frames, commit }, changed: { written: frames.length - tombstones - resolved, tombstones, resolved } };
}

const ORDER: Record<EntityFrame['t'], number> = { node: 0, relation: 1, unresolved: 2 };

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The fold as plain entities, without round bookkeeping; references that resolved are history, not structure. */
export function foldedStructure(folded: Folded) {
  const plain = <T extends { t: string; revision: number }>(frame: T) => {
    const { t: _t, revision: _revision, ...rest } = frame;
    return rest;
  };
  return {
    nodes: [...folded.nodes.values()].map(plain).sort(byId),
    relations: [...folded.relations.values()].map(plain).sort(byId),
    unresolved: [...folded.unresolved.values()].filter((entry) => entry.state !== 'resolved').map(plain).sort(byId),
  };
}

function byId(a: { id: string }, b: { id: string }): number {
  return compare(a.id, b.id);
}
