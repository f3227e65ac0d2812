// Lands new source data: for each session, for each source, the bytes added
// since the last pass, as write-once landed files, each with its `.sd`
// derived from the same records as they land.
//
// The order of every step is what makes an interruption safe:
//
//   land the file and its `.sd` (temporary names, fsync, rename, 0444)
//   then commit the cursor
//
// A session's files take these steps together (commit-batch.ts), and the
// order holds for the batch: no cursor is committed before every landed file
// of the batch, and its name, is on the disk. A crash after landing and
// before the cursor re-lands the same records on the next pass. That is
// at-least-once on purpose: assembly removes duplicate records anyway,
// because Claude Code writes duplicates itself, so a repeat costs nothing,
// while the opposite order would lose data. A landed file left without its
// `.sd` is mended by the next pass, which derives every missing one before
// it lands anything of that session.
//
// A session is the unit of work. Its sequence counter spans all its streams,
// so one session is processed by one collector, under a lock, in one thread;
// sessions are independent of each other.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { overwriteInPlace, PendingFile, READ_ONLY } from '../files/atomic-file.ts';
import { cursorText, readCursor, writeCursor, type AppendCursor, type Cursor } from '../landing/cursor.ts';
import { isJsonText } from '../files/json-text.ts';
import { encodingFor, headerLine, parsedPayloadOf, recordLine, type LandedHeader } from '../landing/landed-file.ts';
import { digestOf } from '../files/digest.ts';
import { cursorName, landedName, lockPath, placeFolder, placePath, sessionFolder, sessionStatePath } from '../landing/layout.ts';
import { BUFFER_BYTES } from '../files/buffer-pool.ts';
import { readLines, readRange, withOpenFile } from '../files/line-reader.ts';
import { lockSession, SessionLockedError } from '../landing/lock.ts';
import { isLeftByEndedProcess, removeLeftTemporaries } from '../files/process.ts';
import { listSession, readSessionState, sessionStateIsSound, sessionStateText, type SessionListing } from '../landing/session-state.ts';
import { deriveMissingSessionData, landedFilesWithoutSessionData, SessionDataWriter } from '../session-data/derive.ts';
import { CommitBatch, CommitError } from './commit-batch.ts';
import { finishedLine, holdsNewline, inFlightMessage, isQuiet, verdictOf } from './source-verdict.ts';
import type { Adapter, CollectableSource, DiscoveredSession } from '../adapters/adapter.ts';

// A landed file is closed and a new one started past this size, and a
// session's batch is committed once it holds two such files (see
// commit-batch.ts). A transcript of tens of megabytes then lands in several
// files rather than one, a first backfill that is interrupted keeps what it committed, and the
// `.sd` of one landed file never has to hold more than this.
export const LANDED_FILE_BYTES = 32 << 20;

// Lines from 1 MiB up are reported. They are landed like any other; the
// report exists because tools with a fixed line limit fail on them silently
// (the longest line measured in the seed corpus is 979,632 bytes).
export const LARGE_LINE_BYTES = 1 << 20;

// How many record problems are listed one by one per source; the rest are counted.
const PROBLEMS_LISTED = 20;

const NEWLINE = Buffer.from('\n');

export interface LandedFileSummary {
  readonly seq: number;
  /** Path inside the data folder, with forward slashes. */
  readonly file: string;
  readonly records: number;
  readonly sourceBytes: number;
  /** SHA-256 of the landed file, computed as it was written. */
  readonly digest: string;
}

/** Something about a record that was landed anyway, but that a person should know. */
export interface RecordProblem {
  readonly ord: number;
  readonly offset: number;
  readonly what: string;
}

export type SourceStatus = 'landed' | 'unchanged' | 'empty' | 'conflict' | 'gone' | 'failed';

export interface SourceOutcome {
  readonly source: string;
  readonly place: string;
  readonly status: SourceStatus;
  readonly message?: string;
  readonly landed: LandedFileSummary[];
  readonly problems: RecordProblem[];
  readonly problemCount: number;
  /** Bytes after the last newline: a write still in progress, left for the next pass. */
  readonly inFlightBytes: number;
  readonly unknownShapes: Map<string, number>;
}

export interface SessionOutcome {
  readonly session: string;
  readonly locked?: string;
  readonly sources: SourceOutcome[];
  /** `.sd` files derived for landed files that had none (an earlier crash, or a deleted `.sd`). */
  readonly mended: number;
  /** Landed files whose `.sd` could not be derived, each naming the file and line. */
  readonly unreadable: string[];
}

export interface CollectOptions {
  readonly data: string;
  /** The source root the sources' relative paths are under, to tell a pruned source from a filtered one. */
  readonly sourceRoot: string;
  readonly adapter: Adapter;
  readonly now?: () => Date;
  /** False to land only, leaving every `.sd` to a later pass. The benchmark measures the two stages apart this way. */
  readonly deriveSessionData?: boolean;
}

/** Collects one session. Never throws for a problem with one source: that source's outcome says what failed. */
export function collectSession(session: DiscoveredSession, options: CollectOptions): SessionOutcome {
  return collectSessions([session], options)[0]!;
}

/**
 * Collects sessions one after another, committing their landed files in
 * shared batches: a batch's two flush rounds cost the same for one session as
 * for many, and on this machine's disk each round took several milliseconds,
 * the largest part of landing 160 sessions when each paid for its own. A
 * session stays locked until its batch is committed, and its outcome is
 * reported only then. A failure of one session is its outcome; the others go on.
 * `sessions` is taken one at a time, as each is landed (parallel.ts shares
 * them out between threads this way).
 */
export function collectSessions(sessions: Iterable<DiscoveredSession>, options: CollectOptions, onSession?: (outcome: SessionOutcome) => void): SessionOutcome[] {
  const outcomes: SessionOutcome[] = [];
  const report = (outcome: SessionOutcome): void => {
    outcomes.push(outcome);
    onSession?.(outcome);
  };
  const batch = new CommitBatch();
  let waiting: (LandedSession & { generation: number })[] = [];
  // Sessions whose batch is committed are released and reported; every
  // waiting session is reported with the failure when a batch failed.
  const settle = (failure?: string): void => {
    const settled = failure === undefined ? waiting.filter((landed) => landed.generation <= batch.committedThrough) : waiting;
    waiting = waiting.filter((landed) => !settled.includes(landed));
    for (const landed of settled) {
      landed.release();
      report(failure === undefined ? landed.outcome : failed(landed.outcome.session, failure));
    }
  };
  const commit = (work: () => void): void => {
    try {
      work();
      settle();
    } catch (error) {
      settle((error as Error).message);
    }
  };
  try {
    for (const session of sessions) {
      let landed: LandedSession;
      try {
        landed = landSession(session, options, batch);
      } catch (error) {
        // A batch failed while this session was landing (CommitError, the
        // only error landSession throws): it and every session waiting on a batch failed.
        settle((error as Error).message);
        report(failed(session.id, (error as Error).message));
        continue;
      }
      waiting.push({ ...landed, generation: batch.generation });
      settle();
      if (batch.full) commit(() => batch.commitInBackground());
    }
    commit(() => batch.commit());
  } finally {
    batch.abandon();
    settle('the pass stopped before this session was committed');
  }
  return outcomes;
}

function failed(session: string, message: string): SessionOutcome {
  return { session, sources: [], mended: 0, unreadable: [`session ${session}: ${message}`] };
}

interface LandedSession {
  readonly outcome: SessionOutcome;
  /** Releases the session's lock once its batch is committed. */
  readonly release: () => void;
}

// Lands one session's new data into the batch, and leaves the session locked.
// A failure of the session is its outcome; the only error thrown is a
// CommitError, when a batch failed while the session was landing.
function landSession(session: DiscoveredSession, options: CollectOptions, batch: CommitBatch): LandedSession {
  let lock;
  try {
    lock = lockSession(options.data, session.id);
  } catch (error) {
    if (error instanceof SessionLockedError) return { outcome: { session: session.id, locked: error.message, sources: [], mended: 0, unreadable: [] }, release: () => {} };
    return { outcome: failed(session.id, (error as Error).message), release: () => {} };
  }
  try {
    // Landed files of earlier passes without their `.sd`, mended before this
    // pass lands anything: later, a batch of this pass can have its landed
    // files in place while their `.sd` waits one more round (commit-batch.ts),
    // and mending those would write the same `.sd` twice.
    const listing = listSession(options.data, session.id);
    // Under the session's lock, what a collector or parse that died left
    // half-written here goes: no running process of this tool writes it.
    removeLeftTemporaries(sessionFolder(options.data, session.id));
    for (const [place, names] of listing.folders) removeLeftTemporaries(path.join(sessionFolder(options.data, session.id), place), names);
    const mending = options.deriveSessionData === false ? { derived: 0, failures: [] } : deriveMissingSessionData(options.data, session.id, options.adapter.converter, listing);
    const state = readSessionState(options.data, session.id, listing.landed);
    const context: SessionContext = { ...options, now: options.now ?? (() => new Date()), session: session.id, nextSeq: state.nextSeq, batch };
    const outcomes: SourceOutcome[] = [];
    const visited = new Set<string>();
    for (const source of session.sources) {
      const cursorFile = path.join(placeFolder(options.data, session.id, source.place), cursorName(source.cursorKey));
      if (visited.has(cursorFile)) {
        outcomes.push(outcome(source, 'conflict', `another source of this session already lands in ${placePath(source.place)}/${cursorName(source.cursorKey)}; this one was left alone`));
        continue;
      }
      visited.add(cursorFile);
      outcomes.push(collectSource(context, source, cursorFile));
    }
    outcomes.push(...markVanishedSources(context, visited, listing));
    let newest = 0;
    for (const source of session.sources) {
      try {
        newest = Math.max(newest, fs.statSync(source.path).mtimeMs);
      } catch {
        // Gone since discovery; markVanishedSources or the next pass reports it.
      }
    }
    // A session with nothing landed, ever (only empty files so far), leaves no
    // trace: an empty session folder would be a session with no data.
    const empty = context.nextSeq === 1 && !fs.existsSync(sessionStatePath(options.data, session.id));
    if (!empty) {
      const next = { nextSeq: context.nextSeq, liveness: 'unknown', quietSince: newest > 0 ? new Date(newest).toISOString() : state.quietSince, lastScan: context.now().toISOString() } as const;
      const file = sessionStatePath(options.data, session.id);
      // With nothing landed (a cursor or a `.sd` written, say), only the
      // times change, which no reader needs (the counter is taken from the
      // landed files whatever the state says, and readSessionState takes a
      // damaged value for none): written over the file where it is, they
      // cost no flush and no rename. A pass that finds nothing new at all
      // writes nothing (quietSession).
      if (context.nextSeq === state.nextSeq) overwriteInPlace(file, sessionStateText(next));
      else batch.replace(file, sessionStateText(next));
    }
    const held = lock;
    return {
      outcome: { session: session.id, sources: outcomes, mended: mending.derived, unreadable: mending.failures },
      release: () => {
        held.release();
        if (empty) removeIfEmpty(sessionFolder(options.data, session.id));
      },
    };
  } catch (error) {
    if (error instanceof CommitError) {
      // The batch and everything in it were dropped; nothing of this session is pending.
      lock.release();
      throw error;
    }
    // What this session put into the batch before the failure is committed
    // with it, cursors included, so the session stays locked until then:
    // another collector must not hand out the sequence numbers of files that
    // are landed but not yet renamed into place.
    const held = lock;
    return { outcome: failed(session.id, (error as Error).message), release: () => held.release() };
  }
}

interface SessionContext extends CollectOptions {
  readonly now: () => Date;
  readonly session: string;
  nextSeq: number;
  /** The session's landed files and cursors not yet committed. */
  readonly batch: CommitBatch;
}

/**
 * The outcome of a session with nothing to land, nothing to mend (a `.sd`
 * missing, a state damaged) and no cursor to change, found without its lock
 * and without writing anything; undefined when the pass has work there,
 * which it does under the lock.
 *
 * A pass that finds nothing new used to lock every session (a lock file
 * made and removed) and write its state over again with the pass's time,
 * which nothing reads. Each pass of a watching collector (every five
 * seconds by default) did so for every session of the history, and for a
 * large history that was most of a pass that found nothing new. A pass (collect-all.ts) asks this of each session before it
 * lands any, and lands only those without an answer.
 *
 * Reading without the lock is safe because nothing here is acted on: a
 * collector in the middle of landing the session leaves a landed file
 * without its `.sd`, or a cursor behind its source, and either sends this
 * pass to the lock like any other work.
 */
export function quietSession(session: DiscoveredSession, options: CollectOptions): SessionOutcome | undefined {
  try {
    // Held by another collector: the pass under the lock says so.
    if (fs.existsSync(lockPath(options.data, session.id))) return undefined;
    const listing = listSession(options.data, session.id);
    // Temporary files that a dead process left are work: the pass removes them under the lock.
    if ([...listing.folders.values()].some((names) => [...names].some(isLeftByEndedProcess))) return undefined;
    if (options.deriveSessionData !== false && landedFilesWithoutSessionData(options.data, session.id, listing).length > 0) return undefined;
    if (!sessionStateIsSound(options.data, session.id, listing.landed)) return undefined;
    const sources: SourceOutcome[] = [];
    const visited = new Set<string>();
    for (const source of session.sources) {
      const cursorFile = path.join(placeFolder(options.data, session.id, source.place), cursorName(source.cursorKey));
      if (visited.has(cursorFile)) return undefined;
      visited.add(cursorFile);
      const quiet = quietOutcome(source, cursorFile, readCursor(cursorFile), options.now?.() ?? new Date());
      if (!quiet) return undefined;
      sources.push(quiet);
    }
    for (const { file } of unvisitedCursors(options.data, session.id, listing, visited)) if (vanishedCursor(file, options.sourceRoot)) return undefined;
    return { session: session.id, sources, mended: 0, unreadable: [] };
  } catch {
    // Whatever failed, the pass under the lock meets it again and reports it.
    return undefined;
  }
}

/**
 * A source's outcome when collecting it writes nothing: a cursor that says
 * all of it is landed, or that an earlier conflict stopped it, or no cursor
 * and nothing in it yet, or only a line still being written past it.
 * Undefined when there is something to land or a cursor to change. Throws
 * what reading the source throws.
 */
function quietOutcome(source: CollectableSource, cursorFile: string, cursor: Cursor | undefined, now: Date): SourceOutcome | undefined {
  const verdict = verdictOf(source, cursor);
  switch (verdict.kind) {
    case 'stopped':
      return stoppedEarlier(source, cursorFile, verdict.cursor);
    case 'empty':
      return outcome(source, 'empty', verdict.message);
    case 'unchanged':
      // A cursor that is not active is made active again under the lock.
      return verdict.cursor.state === 'active' ? outcome(source, 'unchanged') : undefined;
    case 'grown': {
      if (!verdict.cursor || verdict.cursor.state !== 'active') return undefined;
      const { offset } = verdict.cursor;
      const size = Number(verdict.stat.size);
      const inFlight = size - offset;
      // Bytes after the last landed line with no newline among them are a
      // line still being written: nothing to land yet, as the pass under the
      // lock would find after checking the landed prefix again.
      if (inFlight > BUFFER_BYTES || holdsNewline(source.path, offset, size)) return undefined;
      const quiet = isQuiet(Number(verdict.stat.mtimeMs), now);
      if (quiet && finishedLine(source.path, offset, size) !== undefined) return undefined;
      return { ...outcome(source, 'unchanged', inFlightMessage(inFlight, quiet)), inFlightBytes: inFlight };
    }
    case 'conflict':
    case 'changed':
      return undefined;
  }
}

/** A source an earlier conflict stopped: said again, and left alone until a person moves its cursor aside. */
function stoppedEarlier(source: CollectableSource, cursorFile: string, cursor: Cursor): SourceOutcome {
  return outcome(source, 'conflict', `stopped by an earlier conflict: ${cursor.conflict ?? 'unknown'}. Its landed data is kept; move ${cursorFile} aside to land the source again from the start`);
}

function outcome(source: CollectableSource, status: SourceStatus, message?: string): SourceOutcome {
  return emptyOutcome(source.relative, placePath(source.place), status, message);
}

function emptyOutcome(source: string, place: string, status: SourceStatus, message?: string): SourceOutcome {
  return { source, place, status, message, landed: [], problems: [], problemCount: 0, inFlightBytes: 0, unknownShapes: new Map() };
}

function collectSource(context: SessionContext, source: CollectableSource, cursorFile: string): SourceOutcome {
  let cursor: Cursor | undefined;
  try {
    cursor = readCursor(cursorFile);
  } catch (error) {
    return outcome(source, 'failed', `${cursorFile}: ${(error as Error).message}`);
  }
  try {
    const verdict = verdictOf(source, cursor);
    switch (verdict.kind) {
      case 'stopped':
        return stoppedEarlier(source, cursorFile, verdict.cursor);
      case 'conflict':
        return stop(context, source, cursorFile, verdict.cursor, verdict.why);
      case 'empty':
        return outcome(source, 'empty', verdict.message);
      case 'unchanged':
        if (verdict.cursor.state !== 'active') writeCursor(cursorFile, { ...verdict.cursor, state: 'active' }, context.now());
        return outcome(source, 'unchanged');
      case 'grown':
        return collectAppend(context, source, cursorFile, verdict.cursor, verdict.stat);
      case 'changed':
        return collectSnapshot(context, source, cursorFile, verdict.content, verdict.digest);
    }
  } catch (error) {
    if (error instanceof CommitError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !fs.existsSync(source.path)) {
      if (cursor) writeCursor(cursorFile, { ...cursor, state: 'source_gone' }, context.now());
      return outcome(source, 'gone', 'the source disappeared during collection; what was landed stays');
    }
    return outcome(source, 'failed', (error as Error).message);
  }
}

// A conflict stops one source and nothing else. The cursor records why, so
// every later pass says so again instead of landing a changed file on top of
// the old one; the landed data is never touched.
function stop(context: SessionContext, source: CollectableSource, cursorFile: string, cursor: Cursor, why: string): SourceOutcome {
  writeCursor(cursorFile, { ...cursor, state: 'conflict', conflict: why }, context.now());
  return outcome(source, 'conflict', `${why}. Collection of this source stopped; its landed data is kept`);
}

class Landing {
  private pending: PendingFile | undefined;
  private sessionData: SessionDataWriter | undefined;
  private header: LandedHeader | undefined;
  private records = 0;
  private sourceBytes = 0;
  readonly files: LandedFileSummary[] = [];
  readonly problems: RecordProblem[] = [];
  problemCount = 0;
  readonly unknownShapes = new Map<string, number>();

  constructor(
    private readonly context: SessionContext,
    private readonly source: CollectableSource,
  ) {}

  get size(): number {
    return this.pending?.size ?? 0;
  }

  add(ord: number, offset: number, bytes: Buffer): void {
    if (!this.pending) this.open();
    const sha = digestOf(bytes);
    // When the `.sd` is derived in the same pass, its converter parses every
    // record anyway, so that one parse also decides whether the record is JSON.
    const { encoding, parsed } = this.sessionData ? parsedPayloadOf(bytes) : { encoding: encodingFor(bytes), parsed: undefined };
    if (encoding === 'base64') this.problem(ord, offset, 'not valid UTF-8; landed as base64');
    // A document that is JSON spread over lines (a pretty-printed sidecar, or
    // one ending in a newline) is encoded only to fit one envelope line; that
    // is not a problem with the source. A script is never JSON.
    else if (encoding === 'utf8' && this.source.kind !== 'workflow_script' && (this.source.nature === 'append' || !isJsonText(bytes))) {
      this.problem(ord, offset, bytes.length === 0 ? 'an empty line; landed as text' : 'not JSON; landed as text');
    }
    if (bytes.length >= LARGE_LINE_BYTES) this.problem(ord, offset, `a line of ${bytes.length} bytes`);
    for (const piece of recordLine(ord, offset, sha, encoding, bytes)) this.pending!.write(piece);
    this.records++;
    this.sourceBytes += bytes.length;
    this.sessionData?.add({ ord, off: offset, sha, encoding, payload: bytes }, this.records, parsed);
  }

  private problem(ord: number, offset: number, what: string): void {
    this.problemCount++;
    if (this.problems.length < PROBLEMS_LISTED) this.problems.push({ ord, offset, what });
  }

  private open(): void {
    const { context, source } = this;
    const seq = context.nextSeq++;
    const at = context.now();
    const folder = placeFolder(context.data, context.session, source.place);
    this.pending = new PendingFile(path.join(folder, landedName(source.prefix, at, seq)), { mode: READ_ONLY, durability: 'landed', digest: true });
    this.header = {
      h: 1,
      seq,
      at: at.toISOString(),
      kind: source.kind,
      adapter: context.adapter.name,
      src: source.relative,
      session: context.session,
      stream: source.place.type === 'stream' ? source.place.stream : null,
      ...(source.place.type === 'run' ? { run: source.place.run } : {}),
      state: 'available',
    };
    this.pending.write(headerLine(this.header));
    if (context.deriveSessionData !== false) this.sessionData = new SessionDataWriter(this.pending.target, this.header, context.adapter.converter);
  }

  /**
   * Closes the open file and its `.sd` and hands both to the session's batch,
   * which makes them durable before `cursor` (given the sequence number just
   * landed) is committed. Returns false when there was nothing to close.
   */
  finish(cursor: (seq: number) => { file: string; content: string }): boolean {
    if (!this.pending) return false;
    const pending = this.pending;
    const sessionData = this.sessionData;
    this.pending = undefined;
    this.sessionData = undefined;
    let digest: string;
    try {
      digest = pending.seal()!;
      sessionData?.seal(digest);
    } catch (error) {
      pending.abandon();
      sessionData?.file.abandon();
      throw error;
    }
    this.context.batch.addLanded(pending, sessionData);
    const seq = this.header!.seq;
    const next = cursor(seq);
    this.context.batch.replace(next.file, next.content);
    const file = path.relative(this.context.data, pending.target).split(path.sep).join('/');
    this.files.push({ seq, file, records: this.records, sourceBytes: this.sourceBytes, digest });
    if (sessionData) for (const [why, count] of sessionData.report.unknownShapes) this.unknownShapes.set(why, (this.unknownShapes.get(why) ?? 0) + count);
    this.records = 0;
    this.sourceBytes = 0;
    if (this.context.batch.full) this.context.batch.commitInBackground();
    return true;
  }

  abandon(): void {
    this.pending?.abandon();
    this.sessionData?.file.abandon();
    this.pending = undefined;
    this.sessionData = undefined;
  }

  outcome(status: SourceStatus, inFlightBytes: number, message?: string): SourceOutcome {
    return {
      source: this.source.relative,
      place: placePath(this.source.place),
      status,
      message,
      landed: this.files,
      problems: this.problems,
      problemCount: this.problemCount,
      inFlightBytes,
      unknownShapes: this.unknownShapes,
    };
  }
}

/** Lands the complete lines past the cursor (the verdict was `grown`): `stat` is the size and identity it was decided on. */
function collectAppend(context: SessionContext, source: CollectableSource, cursorFile: string, cursor: AppendCursor | undefined, stat: fs.BigIntStats): SourceOutcome {
  const device = String(stat.dev);
  const inode = String(stat.ino);
  const size = Number(stat.size);
  return withOpenFile(source.path, (descriptor) => {
    const prefix = crypto.createHash('sha256');
    const start = cursor?.offset ?? 0;
    if (cursor && start > 0) {
      for (const chunk of readRange(descriptor, 0, start, 'the file ended early while its landed prefix was being checked')) prefix.update(chunk);
      if (prefix.copy().digest('hex') !== cursor.prefixSha256) {
        return stop(context, source, cursorFile, cursor, `the ${start} bytes already landed have changed (their SHA-256 differs from the one recorded)`);
      }
    }
    const landing = new Landing(context, source);
    let ord = cursor?.ord ?? 0;
    let consumed = start;
    let lastLine = { offset: -1, length: 0 };
    let lastRecord = cursor?.lastRecord ?? '';
    const commit = (): void => {
      landing.finish((lastSeq) => {
        lastRecord = recordIdAt(context, descriptor, lastLine) || lastRecord;
        const next: AppendCursor = {
          type: 'append',
          source: source.relative,
          device,
          inode,
          offset: consumed,
          ord,
          lastRecord,
          prefixSha256: prefix.copy().digest('hex'),
          lastSeq,
          sizeAtScan: size,
          state: 'active',
        };
        return { file: cursorFile, content: cursorText(next, context.now()) };
      });
    };
    const reading = { trailingBytes: 0 };
    let quiet = false;
    try {
      for (const line of readLines(descriptor, start, size, reading)) {
        ord++;
        landing.add(ord, line.offset, line.bytes);
        prefix.update(line.bytes);
        prefix.update(NEWLINE);
        consumed = line.next;
        lastLine = { offset: line.offset, length: line.bytes.length };
        if (landing.size >= LANDED_FILE_BYTES) commit();
      }
      quiet = reading.trailingBytes > 0 && isQuiet(Number(stat.mtimeMs), context.now());
      const last = quiet ? finishedLine(source.path, consumed, size) : undefined;
      if (last !== undefined) {
        // Consumed whole: the landed prefix is every byte of the file, with no newline after the last.
        ord++;
        landing.add(ord, consumed, last);
        prefix.update(last);
        lastLine = { offset: consumed, length: last.length };
        consumed = size;
        reading.trailingBytes = 0;
      }
      commit();
    } catch (error) {
      landing.abandon();
      throw error;
    }
    const status = landing.files.length > 0 ? 'landed' : 'unchanged';
    const message = reading.trailingBytes > 0 ? inFlightMessage(reading.trailingBytes, quiet) : undefined;
    return landing.outcome(status, reading.trailingBytes, message);
  });
}

/** Lands a snapshot source's new content (the verdict was `changed`) as one record. */
function collectSnapshot(context: SessionContext, source: CollectableSource, cursorFile: string, content: Buffer, digest: string): SourceOutcome {
  const landing = new Landing(context, source);
  try {
    landing.add(0, 0, content);
    landing.finish((lastSeq) => ({
      file: cursorFile,
      content: cursorText({ type: 'snapshot', source: source.relative, contentSha256: digest, size: content.length, lastSeq, state: 'active' }, context.now()),
    }));
  } catch (error) {
    landing.abandon();
    throw error;
  }
  return landing.outcome('landed', 0);
}

// The diagnostic anchor is the id of the last record landed. It is read from
// the file again rather than kept from the loop, so the loop never copies a
// line only in case it turns out to be the last.
function recordIdAt(context: SessionContext, descriptor: number, line: { offset: number; length: number }): string {
  if (line.offset < 0) return '';
  const bytes = Buffer.allocUnsafe(line.length);
  fs.readSync(descriptor, bytes, 0, line.length, line.offset);
  return context.adapter.recordId(bytes);
}

/**
 * Marks the cursors of sources that no longer exist as source_gone. Pruned
 * sources are normal (Claude Code deletes old transcripts while their child
 * streams survive), so this is a state, not an error, and the landed data
 * stays: the storage zone outlives its sources.
 */
function markVanishedSources(context: SessionContext, visited: Set<string>, listing: SessionListing): SourceOutcome[] {
  const outcomes: SourceOutcome[] = [];
  // The cursors listed as the session was taken up: one a source makes in
  // this pass is its own, and visited.
  for (const { file, place } of unvisitedCursors(context.data, context.session, listing, visited)) {
    const cursor = vanishedCursor(file, context.sourceRoot);
    if (!cursor) continue;
    writeCursor(file, { ...cursor, state: 'source_gone' }, context.now());
    outcomes.push(emptyOutcome(cursor.source, place, 'gone', 'the source no longer exists; what was landed from it stays'));
  }
  return outcomes;
}

/** The cursor files of a listed session that no source of this pass has, with the place of each. */
function* unvisitedCursors(data: string, session: string, listing: SessionListing, visited: ReadonlySet<string>): Generator<{ file: string; place: string }> {
  const root = sessionFolder(data, session);
  for (const [place, names] of listing.folders) {
    for (const name of names) {
      if (!name.endsWith('.cursor')) continue;
      const file = path.join(root, place, name);
      if (!visited.has(file)) yield { file, place };
    }
  }
}

/** The cursor at `file` when the source it names no longer exists and the cursor does not say so yet. */
function vanishedCursor(file: string, sourceRoot: string): Cursor | undefined {
  const cursor = readCursor(file);
  if (!cursor || cursor.state !== 'active') return undefined;
  return fs.existsSync(path.join(sourceRoot, cursor.source)) ? undefined : cursor;
}

/** A session found in the storage zone but no longer among the sources: collecting it records that its sources are gone. */
export function vanishedSession(session: string): DiscoveredSession {
  return { id: session, folders: [], sources: [] };
}

function removeIfEmpty(folder: string): void {
  try {
    fs.rmdirSync(folder);
  } catch {
    // Not empty after all, or already gone: either way nothing to do.
  }
}

