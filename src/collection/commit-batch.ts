// Landed files, committed together in batches.
//
// Landing one file used to take three flushes of its own, one after another:
// the landed file, its folder, its cursor (and a fourth for its `.sd`). The
// files of many sessions are now flushed together instead, in two rounds
// whose order is the order a single file always had:
//
//   1. every landed file and every `.sd` is flushed, then the landed files
//      are renamed into place
//   2. the folders holding those new names are flushed, together with the
//      new cursors and session.state under their temporary names
//   3. only then are the `.sd` files, the cursors and session.state renamed
//
// So no cursor ever moves past bytes whose landed file, and its name, are not
// yet on the disk. A crash anywhere before step 3 leaves the old cursors, and
// the next pass lands the same records again (at-least-once, see
// collector.ts); the temporary files left behind are never read. A `.sd` is
// placed only once the name of its landed file is durable, so a `.sd` never
// outlives a landed file whose sequence number could be handed out again.
//
// Round 1 writes every landed byte to the disk and takes longest, so it runs
// in the background (flush.ts) while the next batch lands, and steps 2 and 3
// follow when that next batch is full or the pass ends. One batch is in
// flight at most.

import path from 'node:path';
import { stagedReplacement, type PendingFile } from '../landing/atomic-file.ts';
import { flushTogether, startFlushing, type Flushing } from '../landing/flush.ts';
import type { SessionDataWriter } from '../session-data/derive.ts';

// A batch is committed once it holds this much, so that a first backfill of
// a very large session that is interrupted keeps most of what it landed, and
// the open files stay few: each landed file and its `.sd` stay open until
// their flush, and two batches are open at most (one flushing, one landing),
// so about 260 descriptors at the most.
const BATCH_BYTES = 64 << 20;
const BATCH_FILES = 64;

/** A batch that could not be committed: a failure of the whole session, not of the source being landed when it happened. */
export class CommitError extends Error {}

interface Landed {
  readonly file: PendingFile;
  readonly sessionData?: SessionDataWriter;
}

// Removing the temporary file of one already placed is harmless: it is gone.
function discard(landed: Landed[]): void {
  for (const entry of landed) {
    entry.file.abandon();
    entry.sessionData?.file.abandon();
  }
}

interface Contents {
  readonly landed: Landed[];
  readonly replacements: Map<string, string>;
}

interface InFlight extends Contents {
  readonly flushing: Flushing;
  readonly generation: number;
}

export class CommitBatch {
  private landed: Landed[] = [];
  // Target → content. A later version of the same file replaces an earlier
  // one: only the newest cursor of a source matters.
  private replacements = new Map<string, string>();
  private bytes = 0;
  private inFlight: InFlight | undefined;
  private handedOver = 0;
  private committed = 0;

  /** A landed file, sealed, with its sealed `.sd` when it was derived while landing. */
  addLanded(file: PendingFile, sessionData: SessionDataWriter | undefined): void {
    this.landed.push({ file, sessionData });
    this.bytes += file.size;
  }

  /** A state file (a cursor, session.state) to replace once every landed file of the batch is durable. */
  replace(target: string, content: string): void {
    this.replacements.set(target, content);
  }

  get full(): boolean {
    return this.bytes >= BATCH_BYTES || this.landed.length >= BATCH_FILES;
  }

  /** The batch that what is added now belongs to; it is committed once committedThrough reaches it. */
  get generation(): number {
    return this.handedOver + 1;
  }

  /** Every batch up to this one is committed. */
  get committedThrough(): number {
    return this.committed;
  }

  /**
   * Starts committing what was added so far, in the background, after
   * finishing the commit of the batch before it. Throws CommitError when that
   * one fails; everything not yet committed is then dropped.
   */
  commitInBackground(): void {
    this.finishInFlight();
    const contents = this.takeContents();
    if (contents.landed.length === 0 && contents.replacements.size === 0) {
      this.committed = ++this.handedOver;
      return;
    }
    try {
      this.inFlight = { ...contents, flushing: startFlushing(sessionFiles(contents.landed)), generation: ++this.handedOver };
    } catch (error) {
      discard(contents.landed);
      this.abandon();
      throw new CommitError(`the landed files could not be committed: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Commits everything added so far and returns when it is durable. Throws CommitError on a failure, dropping what was not committed. */
  commit(): void {
    this.commitInBackground();
    this.finishInFlight();
  }

  private finishInFlight(): void {
    const batch = this.inFlight;
    if (!batch) return;
    this.inFlight = undefined;
    const staged: PendingFile[] = [];
    try {
      batch.flushing.wait();
      for (const entry of batch.landed) entry.file.place();
      for (const [target, content] of batch.replacements) staged.push(stagedReplacement(target, content));
      flushTogether(
        staged,
        batch.landed.map((entry) => path.dirname(entry.file.target)),
      );
      for (const entry of batch.landed) entry.sessionData?.file.place();
      for (const file of staged) file.place();
      this.committed = batch.generation;
    } catch (error) {
      discard(batch.landed);
      for (const file of staged) file.abandon();
      this.abandon();
      throw new CommitError(`the landed files could not be committed: ${(error as Error).message}`, { cause: error });
    }
  }

  private takeContents(): Contents {
    const contents = { landed: this.landed, replacements: this.replacements };
    this.landed = [];
    this.replacements = new Map();
    this.bytes = 0;
    return contents;
  }

  /** Drops everything not yet committed: the temporary files go, and no cursor moves. */
  abandon(): void {
    const batch = this.inFlight;
    this.inFlight = undefined;
    if (batch) {
      try {
        batch.flushing.wait();
      } catch {
        // Its files are removed below either way.
      }
      discard(batch.landed);
    }
    discard(this.takeContents().landed);
  }
}

function sessionFiles(landed: Landed[]): PendingFile[] {
  return landed.flatMap((entry) => (entry.sessionData ? [entry.file, entry.sessionData.file] : [entry.file]));
}
