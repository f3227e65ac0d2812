// The landed files of a session, committed together.
//
// Landing one file used to take three flushes of its own, one after another:
// the landed file, its folder, its cursor (and a fourth for its `.sd`). A
// session's files are now flushed together instead, in two rounds whose order
// is the order a single file always had:
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

import path from 'node:path';
import { stagedReplacement, type PendingFile } from '../landing/atomic-file.ts';
import { flushTogether } from '../landing/flush.ts';
import type { SessionDataWriter } from '../session-data/derive.ts';

// A batch is committed early once it holds this much, so that a first
// backfill of a very large session that is interrupted keeps most of what it
// landed, and the open files stay few.
const BATCH_BYTES = 64 << 20;
const BATCH_FILES = 128;

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

export class CommitBatch {
  private landed: Landed[] = [];
  // Target → content. A later version of the same file replaces an earlier
  // one: only the newest cursor of a source matters.
  private replacements = new Map<string, string>();
  private bytes = 0;

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

  /** Makes everything durable in the order above. On a failure nothing more is placed, the temporary files go, and the error is thrown. */
  commit(): void {
    const landed = this.landed;
    const replacements = this.replacements;
    this.landed = [];
    this.replacements = new Map();
    this.bytes = 0;
    const staged: PendingFile[] = [];
    try {
      flushTogether(landed.flatMap((entry) => (entry.sessionData ? [entry.file, entry.sessionData.file] : [entry.file])));
      for (const entry of landed) entry.file.place();
      for (const [target, content] of replacements) staged.push(stagedReplacement(target, content));
      flushTogether(
        staged,
        landed.map((entry) => path.dirname(entry.file.target)),
      );
      for (const entry of landed) entry.sessionData?.file.place();
      for (const file of staged) file.place();
    } catch (error) {
      discard(landed);
      for (const file of staged) file.abandon();
      throw new CommitError(`the landed files of this session could not be committed: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Drops everything not yet committed: the temporary files go, and no cursor moves. */
  abandon(): void {
    discard(this.landed);
    this.landed = [];
    this.replacements = new Map();
    this.bytes = 0;
  }
}
