// Putting a file on disk so that a crash never leaves half of one: written
// under a temporary name, flushed to the disk, then renamed into place.
//
// Landed files are write-once and read-only: never appended to or rewritten,
// which is what lets a digest of them mean something forever. Derived files
// (`.sd`) are read-only too and replaced only by rebuilding them. State files
// (cursors, session.state) hold current state and are replaced whole.
//
// How much is flushed is a choice per kind of file, because every flush and
// every new file costs a wait on the disk, and a pass over thousands of small
// sources writes three files for each:
//   landed    the file, then its folder: once the cursor moves past these
//             bytes, the landed file and its name must both survive a crash
//   replaced  the file only: if a crash undoes the rename, the previous state
//             or no derived file comes back, and both are safe (the next pass
//             lands again, or derives again), while a renamed file is whole
//   unflushed nothing: for state that every reader can do without, such as
//             the time of a session's last scan when nothing else of it
//             changed. A crash may bring back the old file, or on some file
//             systems an empty one, which readers take for no state

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import type { BufferPool } from './buffer-pool.ts';
import { namingFile } from './write-failure.ts';

export const READ_ONLY = 0o444;

export type Durability = 'landed' | 'replaced' | 'unflushed';

export interface PendingOptions {
  /** Permission bits, set on the open file, so the name never appears with other ones. */
  readonly mode: number;
  readonly durability: Durability;
  /** Compute the SHA-256 of everything written, returned by finish. */
  readonly digest?: boolean;
  /** Lends the staging buffer; without it, the file stages through a small one of its own. */
  readonly buffers?: BufferPool;
  /** The folders already made, for a writer of many files; without it, the file's folder is made (if need be) every time. */
  readonly folders?: KnownFolders;
}

// Writes are gathered into a staging buffer (one of a BufferPool's, for a
// writer of many files): one system call per record would dominate landing
// time for the many small records of a transcript. Bytes are copied in, never
// referenced, because callers hand over views of buffers they reuse (the line
// reader's chunk). A file given no pool stages through a buffer of this size.
const UNPOOLED_STAGING_BYTES = 64 << 10;

// A temporary file is `.<name>.<pid>-<thread>.tmp`, beside the file it will
// become: process and thread in the name, since workers of one process share
// a process id, and the process id tells whose it is once its writer died.
const TEMPORARY_NAME = /^\..+\.(\d+)-\d+\.tmp$/;

/** Where this process and thread write `target` before renaming it into place. */
export function temporaryPathOf(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}-${threadId}.tmp`);
}

/** The process id of the writer of a temporary file named `name`, or undefined for a name that is not one. */
export function writerOfTemporary(name: string): string | undefined {
  return TEMPORARY_NAME.exec(name)?.[1];
}

/** A file being written under a temporary name. Nothing is visible at `target` until `finish`. */
export class PendingFile {
  readonly target: string;
  readonly temporary: string;
  private fileDescriptor: number;
  private staging: Buffer | undefined;
  private staged = 0;
  private written = 0;
  private readonly digest: crypto.Hash | undefined;
  private sealed: { digest: string | undefined } | undefined;

  constructor(
    target: string,
    private readonly options: PendingOptions,
  ) {
    this.target = target;
    this.digest = options.digest ? crypto.createHash('sha256') : undefined;
    this.temporary = temporaryPathOf(target);
    this.staging = options.buffers?.borrow() ?? Buffer.allocUnsafe(UNPOOLED_STAGING_BYTES);
    try {
      if (options.folders) options.folders.ensure(path.dirname(target));
      else fs.mkdirSync(path.dirname(target), { recursive: true });
      this.fileDescriptor = openTemporary(this.temporary, options.mode);
    } catch (error) {
      this.releaseStaging();
      throw namingFile(target, error);
    }
  }

  get size(): number {
    return this.written + this.staged;
  }

  /** `encoding` is how a string is written: 'latin1' writes a string of bytes (see ParsedJson in json-text.ts) as those bytes. */
  write(chunk: Buffer | string, encoding: 'utf8' | 'latin1' = 'utf8'): void {
    const staging = this.staging;
    if (!staging) throw new Error(`${this.target}: written to after it was sealed`);
    if (typeof chunk === 'string') {
      if (chunk.length * (encoding === 'utf8' ? 3 : 1) <= staging.length - this.staged) {
        this.staged += staging.write(chunk, this.staged, encoding);
        return;
      }
      chunk = Buffer.from(chunk, encoding);
    }
    if (chunk.length <= staging.length - this.staged) {
      this.staged += chunk.copy(staging, this.staged);
      return;
    }
    this.flush();
    if (chunk.length < staging.length) {
      this.staged = chunk.copy(staging, 0);
    } else {
      this.writeThrough(chunk);
    }
  }

  private flush(): void {
    if (this.staged === 0) return;
    this.writeThrough(this.staging!.subarray(0, this.staged));
    this.staged = 0;
  }

  private releaseStaging(): void {
    if (this.staging) this.options.buffers?.giveBack(this.staging);
    this.staging = undefined;
  }

  private writeThrough(bytes: Buffer): void {
    this.digest?.update(bytes);
    let offset = 0;
    try {
      while (offset < bytes.length) offset += fs.writeSync(this.fileDescriptor, bytes, offset);
    } catch (error) {
      throw namingFile(this.target, error);
    }
    this.written += bytes.length;
  }

  /** The open temporary file, for a Flusher (landing/flush.ts). */
  get descriptor(): number {
    return this.fileDescriptor;
  }

  get name(): string {
    return this.temporary;
  }

  /**
   * Overwrites the first bytes of the file with `bytes` of the same length as
   * what is there: a header whose last field (a digest) was not known when it
   * was written. Not for a file whose digest is being computed.
   */
  rewriteStart(bytes: Buffer): void {
    if (this.digest) throw new Error(`${this.target}: a digested file cannot be rewritten`);
    this.flush();
    if (bytes.length > this.written) throw new Error(`${this.target}: cannot rewrite ${bytes.length} bytes of ${this.written} written`);
    let offset = 0;
    try {
      while (offset < bytes.length) offset += fs.writeSync(this.fileDescriptor, bytes, offset, bytes.length - offset, offset);
    } catch (error) {
      throw namingFile(this.target, error);
    }
  }

  /** Writes out what is staged and sets the mode; the file is then ready to be flushed. Returns the digest when one was asked for. */
  seal(): string | undefined {
    if (this.sealed) return this.sealed.digest;
    this.flush();
    // Set on the descriptor, past the process's umask, before the flush.
    try {
      fs.fchmodSync(this.fileDescriptor, this.options.mode);
    } catch (error) {
      throw namingFile(this.target, error);
    }
    this.releaseStaging();
    this.sealed = { digest: this.digest?.digest('hex') };
    return this.sealed.digest;
  }

  /** Closes a sealed file that has been flushed and renames it into place. Its folder is not flushed. */
  place(): void {
    try {
      fs.closeSync(this.fileDescriptor);
      this.fileDescriptor = -1;
      fs.renameSync(this.temporary, this.target);
    } catch (error) {
      throw namingFile(this.target, error);
    }
  }

  /** Flushes to the disk and renames into place. Returns the digest when one was asked for. */
  finish(): string | undefined {
    const digest = this.seal();
    if (this.options.durability !== 'unflushed') fs.fsyncSync(this.fileDescriptor);
    this.place();
    if (this.options.durability === 'landed') syncFolder(path.dirname(this.target));
    return digest;
  }

  /** Removes the temporary file. Safe to call after a failure at any point. */
  abandon(): void {
    this.releaseStaging();
    if (this.fileDescriptor >= 0) {
      try {
        fs.closeSync(this.fileDescriptor);
      } catch {
        // Already closed by a failed write; the file is removed below either way.
      }
      this.fileDescriptor = -1;
    }
    fs.rmSync(this.temporary, { force: true });
  }
}

/**
 * What a whole file is written from: its bytes, its text, or its text in
 * pieces (a file of lines), each written in turn through the staging buffer
 * and never joined, so that a file of megabytes is never held whole as one
 * string, nor again as the bytes it encodes to.
 */
export type WholeContent = Buffer | string | Iterable<string>;

/** Writes a whole write-once file: temporary name, mode 0444, fsync, rename, folder fsync. */
export function writeOnce(target: string, content: WholeContent): void {
  if (fs.existsSync(target)) throw new Error(`${target}: already exists; landed files are never rewritten`);
  writeWhole(target, content, { mode: READ_ONLY, durability: 'landed' });
}

/** Replaces a small state file whole, so a crash leaves either the old or the new content. */
export function replaceFile(target: string, content: string): void {
  writeWhole(target, content, { mode: 0o644, durability: 'replaced' });
}

/** Replaces a state file whole with nothing flushed: see `unflushed` above. */
export function replaceWithoutFlush(target: string, content: WholeContent): void {
  writeWhole(target, content, { mode: 0o644, durability: 'unflushed' });
}

/**
 * Writes `content` over a state file where it is, with no temporary file and
 * no flush, for a file whose readers take any content, damaged or not, as
 * at worst out of date; a file that is not there yet is made whole. Writing
 * over a file is much cheaper than making a new one and renaming it over.
 */
export function overwriteInPlace(target: string, content: string): void {
  // Not there yet, or made read-only: a new file takes its place, as
  // replacing it always did.
  if (!replaceTailInPlace(target, 0, content)) replaceWithoutFlush(target, content);
}

/**
 * Writes `content` over the file `target` from byte `from` on, and cuts the
 * file where it ends, with no flush: for a file whose readers take any
 * content, damaged or not, as at worst out of date. False, with nothing
 * written, when the file is not there or cannot be opened for writing.
 */
export function replaceTailInPlace(target: string, from: number, content: string): boolean {
  let descriptor: number;
  try {
    descriptor = fs.openSync(target, fs.constants.O_WRONLY);
  } catch (error) {
    if (!['ENOENT', 'EACCES', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    return false;
  }
  try {
    const bytes = Buffer.from(content);
    for (let offset = 0; offset < bytes.length; ) offset += fs.writeSync(descriptor, bytes, offset, bytes.length - offset, from + offset);
    fs.ftruncateSync(descriptor, from + bytes.length);
  } catch (error) {
    throw namingFile(target, error);
  } finally {
    fs.closeSync(descriptor);
  }
  return true;
}

/**
 * A state file's new content under a temporary name, written and sealed but
 * not flushed: for a caller that flushes many files together before placing
 * them (see flush.ts). Placing it replaces the file whole.
 */
export function stagedReplacement(target: string, content: string, writer: Pick<PendingOptions, 'buffers' | 'folders'> = {}): PendingFile {
  return writtenAndSealed(target, content, { ...writer, mode: 0o644, durability: 'replaced' });
}

function writeWhole(target: string, content: WholeContent, options: PendingOptions): void {
  const pending = writtenAndSealed(target, content, options);
  try {
    pending.finish();
  } catch (error) {
    pending.abandon();
    throw error;
  }
}

function writtenAndSealed(target: string, content: WholeContent, options: PendingOptions): PendingFile {
  const pending = new PendingFile(target, options);
  try {
    if (typeof content === 'string' || Buffer.isBuffer(content)) pending.write(content);
    else for (const piece of content) pending.write(piece);
    pending.seal();
  } catch (error) {
    pending.abandon();
    throw error;
  }
  return pending;
}

/**
 * Folders known to exist, for a writer of many files (a collection pass), so
 * that each costs one mkdir rather than one per file, which would be a
 * noticeable part of landing.
 */
export class KnownFolders {
  private readonly made = new Set<string>();

  ensure(folder: string): void {
    if (this.made.has(folder)) return;
    fs.mkdirSync(folder, { recursive: true });
    this.made.add(folder);
  }
}

function openTemporary(temporary: string, mode: number): number {
  try {
    return fs.openSync(temporary, 'w', mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // The folder was removed since it was made (a long watch, a purge).
      fs.mkdirSync(path.dirname(temporary), { recursive: true });
    } else if (code === 'EACCES') {
      // A temporary file left by a crashed run is read-only already; it is
      // garbage and goes.
      fs.rmSync(temporary, { force: true });
    } else {
      throw error;
    }
    return fs.openSync(temporary, 'w', mode);
  }
}

// A rename is durable only once the folder that holds the name is flushed too.
// Some filesystems refuse to open a folder for this; the rename has still
// happened, so that refusal is not an error worth failing a landing for.
export function syncFolder(folder: string): void {
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
