// Two ways of putting a file on disk so that a crash never leaves half of one.
//
// Landed and derived files are write-once: written under a temporary name,
// flushed to the disk, renamed into place and made read-only. They are never
// appended to or rewritten, which is what lets a digest of them mean something
// forever.
//
// State files (cursors, session.state) hold current state and are replaced
// whole, through the same temporary name and rename, so a reader sees the old
// state or the new one and never a mixture.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

export const READ_ONLY = 0o444;

// Writes are gathered into a staging buffer of this size: one system call per
// record would dominate landing time for the many small records of a
// transcript. Bytes are copied in, never referenced, because callers hand over
// views of buffers they reuse (the line reader's chunk).
const BATCH = 1 << 20;

/** A file being written under a temporary name. Nothing is visible at `target` until `finish`. */
export class PendingFile {
  readonly target: string;
  readonly temporary: string;
  private descriptor: number;
  private readonly staging = Buffer.allocUnsafe(BATCH);
  private staged = 0;
  private written = 0;
  private readonly digest: crypto.Hash | undefined;

  /** With `digest`, the SHA-256 of everything written is computed on the way and returned by `finish`. */
  constructor(target: string, options: { digest?: boolean } = {}) {
    this.target = target;
    this.digest = options.digest ? crypto.createHash('sha256') : undefined;
    // Process and thread in the name: workers of one process share a process id.
    this.temporary = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}-${threadId}.tmp`);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    this.descriptor = fs.openSync(this.temporary, 'w', 0o644);
  }

  get size(): number {
    return this.written + this.staged;
  }

  write(chunk: Buffer | string): void {
    if (typeof chunk === 'string') {
      if (chunk.length * 3 <= BATCH - this.staged) {
        this.staged += this.staging.write(chunk, this.staged, 'utf8');
        return;
      }
      chunk = Buffer.from(chunk, 'utf8');
    }
    if (chunk.length <= BATCH - this.staged) {
      this.staged += chunk.copy(this.staging, this.staged);
      return;
    }
    this.flush();
    if (chunk.length < BATCH) {
      this.staged = chunk.copy(this.staging, 0);
    } else {
      this.writeThrough(chunk);
    }
  }

  private flush(): void {
    if (this.staged === 0) return;
    this.writeThrough(this.staging.subarray(0, this.staged));
    this.staged = 0;
  }

  private writeThrough(bytes: Buffer): void {
    this.digest?.update(bytes);
    let offset = 0;
    while (offset < bytes.length) offset += fs.writeSync(this.descriptor, bytes, offset);
    this.written += bytes.length;
  }

  /** Flushes to the disk, renames into place and sets the final mode. Returns the digest when one was asked for. */
  finish(mode: number): string | undefined {
    this.flush();
    fs.fsyncSync(this.descriptor);
    fs.closeSync(this.descriptor);
    this.descriptor = -1;
    fs.chmodSync(this.temporary, mode);
    fs.renameSync(this.temporary, this.target);
    syncFolder(path.dirname(this.target));
    return this.digest?.digest('hex');
  }

  /** Removes the temporary file. Safe to call after a failure at any point. */
  abandon(): void {
    if (this.descriptor >= 0) {
      try {
        fs.closeSync(this.descriptor);
      } catch {
        // Already closed by a failed write; the file is removed below either way.
      }
      this.descriptor = -1;
    }
    fs.rmSync(this.temporary, { force: true });
  }
}

/** Writes a whole write-once file: temporary name, fsync, rename, chmod 0444. */
export function writeOnce(target: string, content: Buffer | string): void {
  if (fs.existsSync(target)) throw new Error(`${target}: already exists; landed files are never rewritten`);
  const pending = new PendingFile(target);
  try {
    pending.write(content);
    pending.finish(READ_ONLY);
  } catch (error) {
    pending.abandon();
    throw error;
  }
}

/** Replaces a small state file whole, so a crash leaves either the old or the new content. */
export function replaceFile(target: string, content: string): void {
  const pending = new PendingFile(target);
  try {
    pending.write(content);
    pending.finish(0o644);
  } catch (error) {
    pending.abandon();
    throw error;
  }
}

// A rename is durable only once the folder that holds the name is flushed too.
// Some filesystems refuse to open a folder for this; the rename has still
// happened, so that refusal is not an error worth failing a landing for.
function syncFolder(folder: string): void {
  let descriptor = -1;
  try {
    descriptor = fs.openSync(folder, 'r');
    fs.fsyncSync(descriptor);
  } catch {
    // See above.
  } finally {
    if (descriptor >= 0) fs.closeSync(descriptor);
  }
}
