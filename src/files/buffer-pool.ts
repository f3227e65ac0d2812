// Buffers of 1 MiB for reading and writing files, kept and handed out again
// by whoever does a lot of it (a collection pass, the export's digests).
//
// A pass opens thousands of files, and each needs a 1 MiB buffer to read or
// stage through. A fresh buffer that large is fresh memory from the
// kernel every time, whose pages fault and are cleared as they are first
// touched: a cost paid per file, for nothing. A thread has at most a few files open
// for reading or writing at once, so a handful of buffers serve them all.
// Code given no pool takes a buffer the size of what it reads.

export const BUFFER_BYTES = 1 << 20;

// More than a thread ever holds at once (a line reader, a landed file and its
// `.sd`); a buffer given back beyond this is left to the garbage collector.
const KEPT = 8;

/** Buffers of BUFFER_BYTES, for one owner's files on one thread. */
export class BufferPool {
  private readonly spare: Buffer[] = [];

  /** A buffer of BUFFER_BYTES with unspecified content. Give it back with giveBack when done with it and every view of it. */
  borrow(): Buffer {
    return this.spare.pop() ?? Buffer.allocUnsafeSlow(BUFFER_BYTES);
  }

  giveBack(buffer: Buffer): void {
    if (this.spare.length < KEPT && buffer.length === BUFFER_BYTES && !this.spare.includes(buffer)) this.spare.push(buffer);
  }
}

/** A buffer for reading `bytes` in pieces: the pool's when there is one, else one of just that size, at most BUFFER_BYTES. */
export function readingBuffer(pool: BufferPool | undefined, bytes: number): Buffer {
  return pool?.borrow() ?? Buffer.allocUnsafe(Math.max(1, Math.min(BUFFER_BYTES, bytes)));
}
