// Collects one source of a session under the session's lock: decides what
// it holds against its cursor (source-verdict.ts), then lands its new lines
// or its new content, or stops it on a conflict.

import crypto from 'node:crypto';
import fs from 'node:fs';
import { cursorText, readCursor, writeCursor, type AppendCursor, type Cursor } from '../landing/cursor.ts';
import { readLines, readRange, withOpenFile, type LineReading } from '../files/line-reader.ts';
import { systemErrorText } from '../files/folders.ts';
import { refusedWriteCode } from '../files/write-failure.ts';
import type { CollectableSource } from '../adapters/adapter.ts';
import { CommitError } from './commit-batch.ts';
import { Landing, LANDED_FILE_BYTES } from './landing-writer.ts';
import { outcome, stoppedEarlier, type SessionContext, type SourceOutcome } from './outcome.ts';
import { finishedLine, inFlightMessage, isQuiet, verdictOf } from './source-verdict.ts';

const NEWLINE = Buffer.from('\n');

/** One source's outcome; a problem with the source is that outcome, and the only error thrown is a CommitError of the session's batch. */
export function collectSource(context: SessionContext, source: CollectableSource, cursorFile: string): SourceOutcome {
  let cursor: Cursor | undefined;
  try {
    cursor = readCursor(cursorFile);
  } catch (error) {
    return outcome(source, 'failed', `${cursorFile}: ${(error as Error).message}`);
  }
  try {
    const verdict = verdictOf(source, cursor);
    switch (verdict.kind) {
      case 'stopped':
        return stoppedEarlier(source, cursorFile, verdict.cursor);
      case 'conflict':
        return stop(context, source, cursorFile, verdict.cursor, verdict.why);
      case 'empty':
        return outcome(source, 'empty', verdict.message);
      case 'unchanged':
        if (verdict.cursor.state !== 'active') writeCursor(cursorFile, { ...verdict.cursor, state: 'active' }, context.now());
        return outcome(source, 'unchanged');
      case 'grown':
        return collectAppend(context, source, cursorFile, verdict.cursor, verdict.stat);
      case 'changed':
        return collectSnapshot(context, source, cursorFile, verdict.content, verdict.digest);
    }
  } catch (error) {
    if (error instanceof CommitError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !fs.existsSync(source.path)) {
      if (cursor) writeCursor(cursorFile, { ...cursor, state: 'source_gone' }, context.now());
      return outcome(source, 'gone', 'the source disappeared during collection; what was landed stays');
    }
    const refused = refusedWriteCode(error);
    const failed = { ...outcome(source, 'failed', (error as Error).message), ...(refused !== undefined ? { refused } : {}) };
    // An error of a call on the source file itself, rather than on the storage zone: the source could not be read.
    return (error as NodeJS.ErrnoException).path === source.path ? { ...failed, unreadable: systemErrorText(error) } : failed;
  }
}

// A conflict stops one source and nothing else. The cursor records why, so
// every later pass says so again instead of landing a changed file on top of
// the old one; the landed data is never touched.
function stop(context: SessionContext, source: CollectableSource, cursorFile: string, cursor: Cursor, why: string): SourceOutcome {
  writeCursor(cursorFile, { ...cursor, state: 'conflict', conflict: why }, context.now());
  return outcome(source, 'conflict', `${why}. Collection of this source stopped; its landed data is kept`);
}

/** Lands the complete lines past the cursor (the verdict was `grown`): `stat` is the size and identity it was decided on. */
function collectAppend(context: SessionContext, source: CollectableSource, cursorFile: string, cursor: AppendCursor | undefined, stat: fs.BigIntStats): SourceOutcome {
  const device = String(stat.dev);
  const inode = String(stat.ino);
  const size = Number(stat.size);
  return withOpenFile(source.path, (descriptor) => {
    const prefix = crypto.createHash('sha256');
    const start = cursor?.offset ?? 0;
    if (cursor && start > 0) {
      for (const chunk of readRange(descriptor, 0, start, 'the file ended early while its landed prefix was being checked', context.buffers)) prefix.update(chunk);
      if (prefix.copy().digest('hex') !== cursor.prefixSha256) {
        return stop(context, source, cursorFile, cursor, `the ${start} bytes already landed have changed (their SHA-256 differs from the one recorded)`);
      }
    }
    const landing = new Landing(context, source);
    let ord = cursor?.ord ?? 0;
    let consumed = start;
    let lastLine = { offset: -1, length: 0 };
    let lastRecord = cursor?.lastRecord ?? '';
    const commit = (): void => {
      landing.finish((lastSeq) => {
        lastRecord = recordIdAt(context, descriptor, lastLine) || lastRecord;
        const next: AppendCursor = {
          type: 'append',
          source: source.relative,
          device,
          inode,
          offset: consumed,
          ord,
          lastRecord,
          prefixSha256: prefix.copy().digest('hex'),
          lastSeq,
          sizeAtScan: size,
          state: 'active',
        };
        return { file: cursorFile, content: cursorText(next, context.now()) };
      });
    };
    const reading: LineReading = { trailingBytes: 0 };
    let quiet = false;
    try {
      for (const line of readLines(descriptor, start, size, reading, context.buffers)) {
        ord++;
        landing.add(ord, line.offset, line.bytes);
        prefix.update(line.bytes);
        prefix.update(NEWLINE);
        consumed = line.next;
        lastLine = { offset: line.offset, length: line.bytes.length };
        if (landing.size >= LANDED_FILE_BYTES) commit();
      }
      quiet = reading.trailingBytes > 0 && isQuiet(Number(stat.mtimeMs), context.now());
      // The bytes after the last newline, as the line reader read them: [consumed, size).
      const last = quiet ? finishedLine(Buffer.concat(reading.trailing ?? [], reading.trailingBytes)) : undefined;
      if (last !== undefined) {
        // Consumed whole: the landed prefix is every byte of the file, with no newline after the last.
        ord++;
        landing.add(ord, consumed, last);
        prefix.update(last);
        lastLine = { offset: consumed, length: last.length };
        consumed = size;
        reading.trailingBytes = 0;
      }
      commit();
    } catch (error) {
      landing.abandon();
      throw error;
    }
    const status = landing.files.length > 0 ? 'landed' : 'unchanged';
    const message = reading.trailingBytes > 0 ? inFlightMessage(reading.trailingBytes, quiet) : undefined;
    return landing.outcome(status, reading.trailingBytes, message);
  });
}

/** Lands a snapshot source's new content (the verdict was `changed`) as one record. */
function collectSnapshot(context: SessionContext, source: CollectableSource, cursorFile: string, content: Buffer, digest: string): SourceOutcome {
  const landing = new Landing(context, source);
  try {
    landing.add(0, 0, content);
    landing.finish((lastSeq) => ({
      file: cursorFile,
      content: cursorText({ type: 'snapshot', source: source.relative, contentSha256: digest, size: content.length, lastSeq, state: 'active' }, context.now()),
    }));
  } catch (error) {
    landing.abandon();
    throw error;
  }
  return landing.outcome('landed', 0);
}

// The diagnostic anchor is the id of the last record landed. It is read from
// the file again rather than kept from the loop, so the loop never copies a
// line only in case it turns out to be the last.
function recordIdAt(context: SessionContext, descriptor: number, line: { offset: number; length: number }): string {
  if (line.offset < 0) return '';
  const bytes = Buffer.allocUnsafe(line.length);
  fs.readSync(descriptor, bytes, 0, line.length, line.offset);
  return context.adapter.recordId(bytes);
}
