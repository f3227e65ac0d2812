// Reads a file line by line with memory bounded by the longest line, not by
// the file.
//
// Real transcripts reach tens of megabytes and single lines about a megabyte
// (bench/results/measurements-behind-choices.md). A reader with a fixed line limit fails on those, and
// reading a whole file at once makes memory grow with history. This reads
// fixed chunks and yields each complete line with its byte offset. Bytes after
// the last newline are not a line: in a live source they are a write still in
// progress, so they are never yielded, only counted.

import fs from 'node:fs';
import { readingBuffer, type BufferPool } from './buffer-pool.ts';

const NEWLINE = 0x0a;

export interface Line {
  /** The line's bytes without its newline. Valid until the next line is requested or the reading ends: copy to keep. */
  readonly bytes: Buffer;
  /** Byte offset of the line's first byte in the file. */
  readonly offset: number;
  /** Byte offset just after the line's newline. */
  readonly next: number;
}

export interface LineReading {
  /** Bytes after the last newline, up to `end`. */
  trailingBytes: number;
  /** Those bytes, in the pieces they were read in; set with trailingBytes. */
  trailing?: readonly Buffer[];
}

/** A line longer than a reader's bound: `offset` is where it starts. Nothing past it is read. */
export class LineTooLongError extends Error {
  constructor(
    readonly offset: number,
    readonly longest: number,
  ) {
    super(`the line at byte ${offset} is longer than ${longest} bytes`);
  }
}

/**
 * Yields the complete lines in [start, end) of an open file. `reading.trailingBytes`
 * is set once the generator is exhausted. `buffers` lends the buffer read into.
 * A line longer than `longest` bytes, its newline included, throws
 * LineTooLongError once that many of its bytes are read, so that memory
 * stays bounded by `longest` whatever the file holds.
 */
export function* readLines(descriptor: number, start: number, end: number, reading: LineReading = { trailingBytes: 0 }, buffers?: BufferPool, longest = Infinity): Generator<Line> {
  const chunk = readingBuffer(buffers, end - start);
  try {
    let carried: Buffer[] = [];
    let carriedBytes = 0;
    let lineStart = start;
    let position = start;
    while (position < end) {
      const got = fs.readSync(descriptor, chunk, 0, Math.min(chunk.length, end - position), position);
      if (got === 0) break;
      position += got;
      let cursor = 0;
      while (cursor < got) {
        const newline = chunk.indexOf(NEWLINE, cursor);
        if (carriedBytes + (newline < 0 || newline >= got ? got : newline + 1) - cursor > longest) throw new LineTooLongError(lineStart, longest);
        if (newline < 0 || newline >= got) {
          // The line goes on in the next chunk. It is copied because the chunk
          // buffer is about to be overwritten.
          carried.push(Buffer.from(chunk.subarray(cursor, got)));
          carriedBytes += got - cursor;
          break;
        }
        let bytes = chunk.subarray(cursor, newline);
        if (carriedBytes > 0) {
          carried.push(bytes);
          bytes = Buffer.concat(carried, carriedBytes + bytes.length);
          carried = [];
          carriedBytes = 0;
        }
        const next = lineStart + bytes.length + 1;
        yield { bytes, offset: lineStart, next };
        lineStart = next;
        cursor = newline + 1;
      }
    }
    reading.trailingBytes = carriedBytes;
    reading.trailing = carried;
  } finally {
    buffers?.giveBack(chunk);
  }
}

// A header line is short; the files that start with one run to megabytes.
const FIRST_LINE_PROBE = 16 << 10;

/**
 * The first complete line of an open file of `size` bytes, or undefined if
 * it has none. A short first read usually holds it, where a whole chunk
 * (readLines) would read far more than a header: a parse reads the header
 * of every conversation's newest round, which may be megabytes long.
 */
export function firstLine(descriptor: number, size: number): Buffer | undefined {
  const probe = Buffer.allocUnsafe(Math.min(FIRST_LINE_PROBE, size));
  const got = fs.readSync(descriptor, probe, 0, probe.length, 0);
  const newline = probe.subarray(0, got).indexOf(NEWLINE);
  if (newline >= 0) return probe.subarray(0, newline);
  for (const line of readLines(descriptor, 0, size)) return Buffer.from(line.bytes);
  return undefined;
}

/**
 * The bytes [start, end) of an open file, in chunks valid until the next is
 * requested; a file that ends before `end` throws `endedEarly` (code EIO).
 */
export function* readRange(descriptor: number, start: number, end: number, endedEarly: string, buffers?: BufferPool): Generator<Buffer> {
  const chunk = readingBuffer(buffers, end - start);
  try {
    for (let position = start; position < end; ) {
      const got = fs.readSync(descriptor, chunk, 0, Math.min(chunk.length, end - position), position);
      if (got === 0) throw Object.assign(new Error(endedEarly), { code: 'EIO' });
      yield chunk.subarray(0, got);
      position += got;
    }
  } finally {
    buffers?.giveBack(chunk);
  }
}

/** Opens a file read-only, runs `use`, and closes it whatever happens. */
export function withOpenFile<T>(file: string, use: (descriptor: number) => T): T {
  const descriptor = fs.openSync(file, 'r');
  try {
    return use(descriptor);
  } finally {
    fs.closeSync(descriptor);
  }
}
