// Buffers of 1 MiB for reading and writing files, kept and handed out again.
//
// A pass opens thousands of files, and each needs a 1 MiB buffer to read or
// stage through. A fresh buffer that large is fresh memory from the
// kernel every time, whose pages fault and are cleared as they are first
// touched: a cost paid per file, for nothing. A thread has at most a few files open
// for reading or writing at once, so a handful of buffers serve them all.

export const BUFFER_BYTES = 1 << 20;

// More than a thread ever holds at once (a line reader, a landed file and its
// `.sd`); a buffer given back beyond this is left to the garbage collector.
const KEPT = 8;

const spare: Buffer[] = [];

/** A buffer of BUFFER_BYTES with unspecified content. Give it back with giveBack when done with it and every view of it. */
export function borrowBuffer(): Buffer {
  return spare.pop() ?? Buffer.allocUnsafeSlow(BUFFER_BYTES);
}

export function giveBack(buffer: Buffer): void {
  if (spare.length < KEPT && buffer.length === BUFFER_BYTES && !spare.includes(buffer)) spare.push(buffer);
}
