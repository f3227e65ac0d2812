// SHA-256 of bytes and of files, as lowercase hex.

import crypto from 'node:crypto';
import fs from 'node:fs';
import { readingBuffer, type BufferPool } from './buffer-pool.ts';

/** One call rather than a Hash object per record: the cheaper way for the small records most transcripts are made of. */
export function digestOf(bytes: Uint8Array): string {
  return crypto.hash('sha256', bytes, 'hex');
}

/** SHA-256 of a whole file, read in chunks; `buffers` lends the buffer read into. */
export function digestOfFile(file: string, buffers?: BufferPool): string {
  const descriptor = fs.openSync(file, 'r');
  const chunk = buffers?.borrow() ?? readingBuffer(undefined, fs.fstatSync(descriptor).size);
  try {
    const hash = crypto.createHash('sha256');
    for (;;) {
      const got = fs.readSync(descriptor, chunk, 0, chunk.length, null);
      if (got === 0) break;
      hash.update(chunk.subarray(0, got));
    }
    return hash.digest('hex');
  } finally {
    buffers?.giveBack(chunk);
    fs.closeSync(descriptor);
  }
}
