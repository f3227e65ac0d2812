// The landed file being written for one source, with its `.sd` derived from
// the same records as they land: opened at the first record, closed past
// LANDED_FILE_BYTES or at the end of the source's new bytes, and handed to
// the session's batch with the cursor that follows it.

import path from 'node:path';
import { PendingFile, READ_ONLY } from '../files/atomic-file.ts';
import { digestOf } from '../files/digest.ts';
import { isJsonText } from '../files/json-text.ts';
import { encodingFor, headerLine, parsedPayloadOf, recordLine, type LandedHeader } from '../landing/landed-file.ts';
import { placePath } from '../landing/layout.ts';
import { SessionDataWriter } from '../session-data/derive.ts';
import type { CollectableSource } from '../adapters/adapter.ts';
import type { LandedFileSummary, RecordProblem, SessionContext, SourceOutcome, SourceStatus } from './outcome.ts';

// A landed file is closed and a new one started past this size, and a
// session's batch is committed once it holds two such files (see
// commit-batch.ts). A transcript of tens of megabytes then lands in several
// files rather than one, a first backfill that is interrupted keeps what it committed, and the
// `.sd` of one landed file never has to hold more than this.
export const LANDED_FILE_BYTES = 32 << 20;

// Lines from 1 MiB up are reported. They are landed like any other; the
// report exists because tools with a fixed line limit fail on them silently,
// and real transcripts come close to this (bench/results/measurements-behind-choices.md).
export const LARGE_LINE_BYTES = 1 << 20;

// How many record problems are listed one by one per source; the rest are counted.
const PROBLEMS_LISTED = 20;

export class Landing {
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

  // A sequence number is taken when the file is opened, since its name and
  // header hold it, and given back when the file is abandoned before it
  // reaches the batch (giveBack): a session lands one file at a time, so the
  // abandoned file always holds the last number taken. A number is so kept
  // only by a file the batch renames into place, and session.state, which
  // the batch writes after those renames, never counts one that was not
  // landed: a failed landing (a full disk, say) leaves no gap.
  private open(): void {
    const { context, source } = this;
    const seq = context.nextSeq;
    const at = context.now();
    this.pending = new PendingFile(context.folder.landedFile(source.place, source.prefix, at, seq), { mode: READ_ONLY, durability: 'landed', digest: true, buffers: context.buffers, folders: context.folders });
    context.nextSeq = seq + 1;
    this.header = {
      h: 1,
      seq,
      at: at.toISOString(),
      kind: source.kind,
      adapter: context.adapter.name,
      src: source.relative,
      session: context.folder.session,
      stream: source.place.type === 'stream' ? source.place.stream : null,
      ...(source.place.type === 'run' ? { run: source.place.run } : {}),
      state: 'available',
    };
    this.pending.write(headerLine(this.header));
    if (context.deriveSessionData !== false) this.sessionData = new SessionDataWriter(this.pending.target, this.header, context.adapter.converter, context);
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
      this.giveBack();
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

  /** Removes the file being written, if any, and gives its sequence number back. */
  abandon(): void {
    if (!this.pending) return;
    this.pending.abandon();
    this.sessionData?.file.abandon();
    this.pending = undefined;
    this.sessionData = undefined;
    this.giveBack();
  }

  private giveBack(): void {
    if (this.header !== undefined && this.context.nextSeq === this.header.seq + 1) this.context.nextSeq = this.header.seq;
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
