// Landed files, committed together in batches.
//
// Landing one file alone takes three flushes of its own, one after another:
// the landed file, its folder, its cursor (and a fourth for its `.sd`). So
// the files of many sessions are flushed together, in two rounds whose order
// is the order a single file would have:
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
// Both rounds run in the background (flush.ts) while the next batch lands:
// when a batch is full, the one before it in round 1 is placed and goes to
// round 2, the one before that in round 2 is committed (step 3), and the new
// batch starts round 1, flushed together with the other's round 2. Two
// batches are in flight at most, and the pass's end commits both.

import path from 'node:path';
import { stagedReplacement, type PendingFile, type PendingOptions } from '../files/atomic-file.ts';
import type { Flusher, Flushing } from '../landing/flush.ts';
import type { SessionDataWriter } from '../session-data/derive.ts';

// A batch is committed once it holds this much, so that a first backfill of
// a very large session that is interrupted keeps most of what it landed, and
// the open files stay few: each landed file stays open until it is placed
// and its `.sd` until its batch is committed, and three batches are open at
// most (one in each round, one landing), so about 330 descriptors at the most.
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

interface HandedOver extends Contents {
  readonly generation: number;
}

// A batch whose landed files are in place, waiting for round 2.
interface Placed extends HandedOver {
  readonly staged: PendingFile[];
}

export class CommitBatch {
  private landed: Landed[] = [];
  // Target → content. A later version of the same file replaces an earlier
  // one: only the newest cursor of a source matters.
  private replacements = new Map<string, string>();
  private bytes = 0;
  // The batch in round 1 (its landed files and `.sd` being flushed) and the
  // one before it in round 2 (its folders and state files being flushed),
  // both under the one flush in flight.
  private inRoundOne: HandedOver | undefined;
  private inRoundTwo: Placed | undefined;
  private flushing: Flushing | undefined;
  private handedOver = 0;
  private committed = 0;

  /** `writer` lends the state files the batch writes their staging buffer and known folders. */
  constructor(
    private readonly flusher: Flusher,
    private readonly writer: Pick<PendingOptions, 'buffers' | 'folders'> = {},
  ) {}

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
   * Starts committing what was added so far, in the background, and moves
   * the batches before it one round on. Throws CommitError when one of those
   * fails; everything not yet committed is then dropped.
   */
  commitInBackground(): void {
    this.advance({ ...this.takeContents(), generation: ++this.handedOver });
  }

  /** Commits everything added so far and returns when it is durable. Throws CommitError on a failure, dropping what was not committed. */
  commit(): void {
    this.commitInBackground();
    while (this.inRoundOne || this.inRoundTwo) this.advance(undefined);
  }

  // Waits for the flush in flight; then the batch in round 2 is committed,
  // the one in round 1 has its landed files placed and goes to round 2, and
  // `next` starts round 1, the two rounds flushed together. The calling
  // thread so never waits for round 2 alone, which is a noticeable part of
  // landing when round 2 follows round 1 of the same batch
  // (bench/results/measurements-behind-choices.md).
  private advance(next: HandedOver | undefined): void {
    const done = this.inRoundTwo;
    const placing = this.inRoundOne;
    const flushing = this.flushing;
    this.inRoundTwo = undefined;
    this.inRoundOne = undefined;
    this.flushing = undefined;
    const staged: PendingFile[] = [];
    try {
      flushing?.wait();
      if (done) {
        for (const entry of done.landed) entry.sessionData?.file.place();
        for (const file of done.staged) file.place();
        this.committed = done.generation;
      }
      if (placing) {
        for (const entry of placing.landed) entry.file.place();
        for (const [target, content] of placing.replacements) staged.push(stagedReplacement(target, content, this.writer));
      }
      const started = this.flusher.start(
        [...staged, ...(next ? sessionFiles(next.landed) : [])],
        placing ? placing.landed.map((entry) => path.dirname(entry.file.target)) : [],
      );
      this.inRoundTwo = placing ? { ...placing, staged } : undefined;
      this.inRoundOne = next;
      this.flushing = started;
    } catch (error) {
      for (const batch of [done, placing, next]) if (batch) discard(batch.landed);
      for (const file of [...staged, ...(done?.staged ?? [])]) file.abandon();
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
    const flushing = this.flushing;
    const placed = this.inRoundTwo;
    const batches = [this.inRoundTwo, this.inRoundOne];
    this.flushing = undefined;
    this.inRoundTwo = undefined;
    this.inRoundOne = undefined;
    try {
      flushing?.wait();
    } catch {
      // Its files are removed below either way.
    }
    for (const batch of batches) if (batch) discard(batch.landed);
    for (const file of placed?.staged ?? []) file.abandon();
    discard(this.takeContents().landed);
  }
}

function sessionFiles(landed: Landed[]): PendingFile[] {
  return landed.flatMap((entry) => (entry.sessionData ? [entry.file, entry.sessionData.file] : [entry.file]));
}
