// One frame of the archive, compressed: its tar entries laid out and read
// straight from their files, through zstd, by whichever thread takes it
// (archive-worker.ts, or the calling thread for a small archive).
//
// Why threads of Node rather than zstd's own: the archive is cut into
// frames (archive-frames.ts), and zstd's workers cut a frame into jobs of
// several megabytes, so they have nothing to share out in most frames, and
// ending each frame waits for its last job with nothing read meanwhile.
// Each thread reads its own frames' files too: handing the threads bytes
// read by the calling thread makes that one thread do all the reading. Many
// frames cost a first archive more than one would; the frames a later
// archive copies pay for that.
//
// Each frame is compressed single-threaded (zstd's nbWorkers 0) from a fresh
// start, with the same level and checksum: its bytes depend on its input
// alone, not on the number of threads or on which one took it, so an
// archive is the same bytes on every machine.

import fs from 'node:fs';
import path from 'node:path';
import type * as Zstd from 'zstd-napi/binding.js';
import { zstd } from '../files/zstd.ts';
import { padding, ZERO_BLOCKS } from './tar.ts';

export const COMPRESSION_LEVEL = 3;

/** One frame to compress: its entries in order, and whether the tar ends with it. */
export interface FrameJob {
  /** Its place among the archive's frames. */
  readonly index: number;
  readonly entries: readonly { readonly header: Uint8Array; readonly file?: string; readonly size: number }[];
  readonly end: boolean;
}

/**
 * What a thread says of a frame, as it goes: each piece of its compressed
 * bytes as zstd gives them (`piece` counting from 0), then that it is done,
 * or why it failed. Pieces go out as they come, so that a frame next in the
 * file is written as it is compressed rather than held whole.
 */
export interface FrameOutcome {
  readonly index: number;
  readonly piece?: number;
  readonly bytes?: Uint8Array;
  readonly failure?: string;
}

/** How much of the tar is laid out before it goes to zstd. */
const STAGING_BYTES = 8 << 20;

/**
 * A thread's compressor, used for frame after frame: the tar is laid out in
 * one buffer used again and again, file bytes read straight into it: a
 * fresh buffer per file makes reading the export much slower than GNU tar
 * reads it.
 */
export class FrameCompressor {
  private readonly context = new zstd.CCtx();
  private readonly staging = Buffer.allocUnsafe(STAGING_BYTES);
  private readonly out = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  private pieces = 0;
  private report: (outcome: FrameOutcome) => void = () => {};
  private index = 0;

  constructor() {
    this.context.setParameter(zstd.CParameter.compressionLevel, COMPRESSION_LEVEL);
    this.context.setParameter(zstd.CParameter.checksumFlag, 1);
  }

  /** Compresses a frame, reporting its pieces and then its end; a file that cannot be read whole is the frame's failure, named. */
  compress(job: FrameJob, folder: string, report: (outcome: FrameOutcome) => void): void {
    this.report = report;
    this.index = job.index;
    try {
      for (const entry of job.entries) {
        this.put(entry.header);
        if (entry.file !== undefined) this.putFile(path.join(folder, entry.file), entry.size);
      }
      if (job.end) this.put(ZERO_BLOCKS);
      this.send(zstd.EndDirective.end);
      report({ index: job.index });
    } catch (error) {
      this.context.reset(zstd.ResetDirective.sessionOnly);
      report({ index: job.index, failure: (error as Error).message });
    } finally {
      this.used = 0;
      this.pieces = 0;
    }
  }

  private putFile(file: string, size: number): void {
    const descriptor = fs.openSync(file, 'r');
    try {
      for (let position = 0; position < size; ) {
        if (this.used === this.staging.length) this.send(zstd.EndDirective.continue);
        const read = fs.readSync(descriptor, this.staging, this.used, Math.min(size - position, this.staging.length - this.used), position);
        if (read === 0) throw new Error(`${file}: the file shrank while it was archived (${size} bytes when it was listed, ${position} read)`);
        this.used += read;
        position += read;
      }
    } finally {
      fs.closeSync(descriptor);
    }
    this.put(padding(size));
  }

  private put(bytes: Uint8Array): void {
    for (let at = 0; at < bytes.length; ) {
      if (this.used === this.staging.length) this.send(zstd.EndDirective.continue);
      const length = Math.min(bytes.length - at, this.staging.length - this.used);
      this.staging.set(bytes.subarray(at, at + length), this.used);
      this.used += length;
      at += length;
    }
  }

  /** What is laid out, to zstd; with `end`, the frame is ended too. */
  private send(directive: Zstd.EndDirective): void {
    let input = this.staging.subarray(0, this.used);
    for (;;) {
      const [remaining, produced, consumed] = this.context.compressStream2(this.out, input, directive);
      if (produced > 0) this.report({ index: this.index, piece: this.pieces++, bytes: new Uint8Array(this.out.subarray(0, produced)) });
      input = input.subarray(consumed);
      if (input.length === 0 && (directive === zstd.EndDirective.continue || remaining === 0)) break;
    }
    this.used = 0;
  }
}
