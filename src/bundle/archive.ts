// The export as one deterministic `.tar.zst`.
//
// The tar is reproducible: entries sorted bytewise under one top folder,
// `export/`; folders 0755 and files 0644; uid and gid 0 with empty owner names;
// mtimes from the evidence, never the clock: a landed file and its `.sd` the
// time it was landed (read from its name), the rest of a conversation the
// time of its first or newest landed file, the export's own files the newest
// of all (archive-frames.ts, evidenceTimes), and every entry
// SOURCE_DATE_EPOCH when it is set.
// So the same export archived twice is the same bytes. The tar is compressed
// in frames at the edges of conversations (archive-frames.ts), so that an archive made
// again after a small change copies most of its frames from the one it
// replaces. GNU `tar --zstd -x` extracts it and `zstd -t` accepts it.
//
// The tar's headers are written by tar.ts, and the tar is
// compressed by zstd-napi (zstd 1.5.7 through Node-API), frame by frame on
// every core (frame-compressor.ts), with frame checksums on: zstd-napi
// streams with bounded memory and writes standard frames the zstd command
// reads, where zstd-codec, which the first design named, cannot compress an
// export's size or write a checksum (docs/dependencies.md). It builds from
// source with node-gyp when no prebuilt binary can be fetched.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { defaultThreads, workerModule, workOnCores } from '../cores/work-on-cores.ts';
import { BufferPool } from '../files/buffer-pool.ts';
import { readRange } from '../files/line-reader.ts';
import { recoverWhatEndedProcessesLeft } from '../files/process.ts';
import { namingFile, refusedWriteCode } from '../files/write-failure.ts';
import { conversationsNamed, evidenceTimes, FrameKey, framesOf, groupOf, keepFrameIndex, ownerOf, PreviousFrames, type KeptFrame } from './archive-frames.ts';
import { COMPRESSION_LEVEL, FrameCompressor, type FrameJob, type FrameOutcome } from './frame-compressor.ts';
import { compareBytes, META_FILES, regularExportFiles } from './manifest.ts';
import { UNOBSERVED, type StepObserver } from './steps.ts';
import { headerBytes, type TarHeader } from './tar.ts';

export { COMPRESSION_LEVEL };
export const ARCHIVE_TOP = 'export';

/** The worker's module: its own build in the kept command's bundle, else its source. */
export const ARCHIVE_WORKER = workerModule('archive-worker', new URL('./archive-worker.ts', import.meta.url));

/**
 * Below this many bytes to compress, the calling thread does it alone:
 * starting workers costs more than they save on a small export.
 */
const PARALLEL_FROM_BYTES = 128 << 20;

/** Where the archive is written before it is renamed into place. */
function temporaryArchive(archive: string): string {
  return `${archive}.${process.pid}.tmp`;
}

/**
 * Where the archive this one replaces is moved just before this one takes
 * its place, until it is removed. Renamed over, it would be freed as the
 * rename is made, and ext4 writes the new archive out first, while the
 * export waits (bench/results/peers-2026-12-06-stop-47.md).
 */
function earlierArchive(archive: string): string {
  return `${archive}.${process.pid}.earlier`;
}

/**
 * Tidies what an interrupted or crashed archiver left beside `archive`, of
 * a process no longer running: `<archive>.<pid>.tmp` is removed, and
 * `<archive>.<pid>.earlier` is put back when no archive took its place, else
 * removed.
 */
function removeAbandonedArchives(archive: string): void {
  const prefix = `${path.basename(archive)}.`;
  recoverWhatEndedProcessesLeft(archive, (name) => {
    const left = name.startsWith(prefix) ? /^(\d+)\.(tmp|earlier)$/.exec(name.slice(prefix.length)) : null;
    return left !== null ? { pid: Number(left[1]), earlier: left[2] === 'earlier' } : undefined;
  });
}

function sourceDateEpoch(environment: NodeJS.ProcessEnv): Date | undefined {
  const epoch = environment.SOURCE_DATE_EPOCH;
  return epoch !== undefined && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : undefined;
}

export interface ArchiveOptions {
  /** One mtime for every entry, instead of each conversation's newest evidence. */
  readonly mtime?: Date;
  readonly observer?: StepObserver;
  /**
   * Take frames from the archive this one replaces (archive-frames.ts):
   * `index` is where that archive's frame index is kept, and `digests` the
   * SHA-256 of the export's files by path, just taken for its manifest.
   */
  readonly reuse?: { readonly index: string; readonly digests: ReadonlyMap<string, string> };
  /**
   * The export's files as its manifest lists them, with their sizes: every
   * file but the manifests and the root digest, which are added here. Taken
   * rather than walking the export and reading every size again, which is
   * a noticeable part of a small second export's archive step.
   */
  readonly listed?: readonly { readonly path: string; readonly size: number }[];
  /** The fewest bytes to compress for which workers are started; see PARALLEL_FROM_BYTES. For tests. */
  readonly parallelFromBytes?: number;
  /**
   * Removes the archive this one replaced, moved aside (earlierArchive),
   * while the caller goes on; without it, it is removed before the archive
   * is returned.
   */
  readonly removeEarlier?: (earlier: string) => void;
}

export interface ArchiveResult {
  readonly archive: string;
  readonly bytes: number;
  readonly entries: number;
  readonly frames: number;
  /** Frames copied from the archive this one replaced rather than compressed. */
  readonly framesReused: number;
}

export async function writeArchive(exportFolder: string, archive: string, options: ArchiveOptions = {}): Promise<ArchiveResult> {
  const observer = options.observer ?? UNOBSERVED;
  observer.step('archive');
  const files = options.listed !== undefined ? [...options.listed, ...[...META_FILES].map((file) => sizeOf(exportFolder, file))] : filesOf(exportFolder);
  const conversations = conversationsNamed(files.map(({ path: file }) => file));
  const folders = new Set<string>();
  for (const { path: file } of files) for (let at = path.posix.dirname(file); at !== '.'; at = path.posix.dirname(at)) folders.add(at);
  // Each entry with the conversation it belongs to, which decides its frame and its time.
  const names = [...[...folders].map((folder) => ({ name: `${folder}/`, file: undefined as string | undefined, size: 0 })), ...files.map(({ path: file, size }) => ({ name: file, file, size }))]
    .sort((a, b) => compareBytes(a.name, b.name))
    .map((entry) => ({ ...entry, owner: ownerOf(entry.name, conversations) }));
  const timeOf = entryTimes(names, options.mtime ?? sourceDateEpoch(process.env));
  // The top folder, then runs of neighbours in sorted order (archive-frames.ts), then the tar's end.
  const frames = [[{ name: '', file: undefined as string | undefined, size: 0, owner: undefined as string | undefined }], ...framesOf(names, (entry) => groupOf(entry.name, entry.owner)), []];

  removeAbandonedArchives(archive);
  const temporary = temporaryArchive(archive);
  const previous = options.reuse ? PreviousFrames.open(options.reuse.index, archive) : PreviousFrames.none();
  const output = new FramesFile(temporary);
  // Lends the buffers each kept frame of the previous archive is read through: to copy it, and to check it first unless the archive is untouched since it was written (PreviousFrames).
  const buffers = new BufferPool();
  try {
    // Each frame's headers and key, and whether the previous archive has it.
    const plan = frames.map((entries, index) => {
      const key = new FrameKey();
      const laid = entries.map(({ name, file, size, owner }) => {
        const header: TarHeader = { mtime: timeOf({ file, owner }), uid: 0, gid: 0, uname: '', gname: '', name: `${ARCHIVE_TOP}/${name}`, type: file === undefined ? 'directory' : 'file', mode: file === undefined ? 0o755 : 0o644, size };
        if (file !== undefined) key.content(options.reuse?.digests.get(file));
        const bytes = headerBytes(header);
        key.header(bytes);
        return { header: bytes, file, size };
      });
      const end = index === frames.length - 1;
      if (end) key.header(END_OF_TAR);
      const digest = key.digest();
      return { job: { index, entries: laid, end } satisfies FrameJob, key: digest, found: previous.find(digest, buffers) };
    });
    const toCompress = plan.filter((frame) => !frame.found).map((frame) => frame.job);
    const bytesToCompress = toCompress.reduce((sum, job) => sum + bytesOf(job), 0);
    // Frames are written in order: each piece of the next frame as it
    // comes, and what comes of a later one held until its turn.
    const held = new Map<number, { pieces: Uint8Array[]; done: boolean; failure?: string }>();
    let next = 0;
    let failure: Error | undefined;
    const writeReady = (): void => {
      try {
        for (; next < plan.length && !failure; next++) {
          const { job, key, found } = plan[next]!;
          if (found) output.copy(previous.descriptor!, found, buffers);
          else {
            const frame = held.get(next);
            if (!frame) return;
            for (const piece of frame.pieces) output.write(piece);
            frame.pieces = [];
            if (frame.failure !== undefined) throw new Error(frame.failure);
            if (!frame.done) return;
            held.delete(next);
            output.endFrame(key);
          }
          observer.advance(job.entries.filter((entry) => entry.file !== undefined).length, bytesOf(job));
        }
      } catch (error) {
        failure = error as Error;
      }
    };
    const take = (outcome: FrameOutcome): void => {
      const frame = held.get(outcome.index) ?? { pieces: [], done: false };
      held.set(outcome.index, frame);
      if (outcome.bytes !== undefined) frame.pieces.push(outcome.bytes);
      else if (outcome.failure !== undefined) frame.failure = outcome.failure;
      else frame.done = true;
      if (outcome.index === next) writeReady();
    };
    const compressHere = (taken: Iterable<FrameJob>, report: (outcome: FrameOutcome) => void): void => {
      const compressor = new FrameCompressor();
      for (const job of taken) compressor.compress(job, exportFolder, report);
    };
    // Frames copied before the first to compress.
    writeReady();
    const threads = defaultThreads();
    if (threads < 2 || bytesToCompress < (options.parallelFromBytes ?? PARALLEL_FROM_BYTES)) compressHere(toCompress, take);
    else {
      await workOnCores<FrameJob, { folder: string }, FrameOutcome>({
        // In the archive's order, so that frames come back nearly in the
        // order they are written and few wait in memory.
        items: toCompress,
        threads,
        // The calling thread writes the frames in order as they come.
        workersOnly: true,
        name: 'the archive worker',
        worker: ARCHIVE_WORKER,
        task: { folder: exportFolder },
        here: compressHere,
        itemKey: (job) => String(job.index),
        // A frame counts as done with its last word, not with its pieces.
        outcomeKey: (outcome) => (outcome.piece === undefined ? String(outcome.index) : `${outcome.index} piece ${outcome.piece}`),
        lost: (job, why) => ({ index: job.index, failure: `${why} while it compressed frame ${job.index} of the archive` }),
        onOutcome: take,
        keepOutcomes: false,
      });
    }
    writeReady();
    if (failure) throw failure;
    const written = output.close();
    const replaced = fs.existsSync(archive);
    if (replaced) fs.renameSync(archive, earlierArchive(archive));
    fs.renameSync(temporary, archive);
    if (replaced) {
      // Its frames were read through a descriptor closed only below, and a file is freed once it is neither named nor open.
      previous.close();
      if (options.removeEarlier !== undefined) options.removeEarlier(earlierArchive(archive));
      else fs.rmSync(earlierArchive(archive), { force: true });
    }
    try {
      if (options.reuse) keepFrameIndex(options.reuse.index, { archive, ...written, frames: output.written.filter((frame): frame is KeptFrame => frame.key !== undefined) });
    } catch (error) {
      // The index is derived: without it, the next archive compresses every frame again. The archive is in place.
      if (refusedWriteCode(error) === undefined) throw error;
    }
    return { archive, bytes: written.bytes, entries: names.length + 1, frames: plan.length, framesReused: plan.length - toCompress.length };
  } catch (error) {
    output.abandon();
    fs.rmSync(temporary, { force: true });
    throw error;
  } finally {
    previous.close();
  }
}

/** Every file of the export with its size, walked; anything but regular files is refused. */
function filesOf(exportFolder: string): { path: string; size: number }[] {
  return regularExportFiles(exportFolder).map((file) => sizeOf(exportFolder, file));
}

function sizeOf(exportFolder: string, file: string): { path: string; size: number } {
  return { path: file, size: fs.statSync(path.join(exportFolder, file)).size };
}

/** What the last frame's key is given for the tar's end, which it holds. */
const END_OF_TAR = Buffer.from('the end of the tar');

/** Each entry's mtime: `fixed` for all when given, else the time of its evidence (archive-frames.ts, evidenceTimes). */
function entryTimes(entries: readonly { readonly file?: string; readonly owner?: string }[], fixed: Date | undefined): (entry: { readonly file?: string; readonly owner?: string }) => Date {
  if (fixed !== undefined) return () => fixed;
  const timeOf = evidenceTimes(entries);
  return (entry) => new Date(timeOf(entry));
}

/** The archive file: frames, compressed or copied from the previous archive, written in order, each with its SHA-256 for the index. */
class FramesFile {
  /** The SHA-256 of the frame being written, while there is one. */
  private hash: crypto.Hash | undefined;
  private descriptor: number | undefined;
  private position = 0;
  /** Where the frame being written began, while there is one. */
  private start: number | undefined;
  readonly written: { key: string | undefined; offset: number; length: number; sha256: string }[] = [];

  constructor(private readonly file: string) {
    this.descriptor = fs.openSync(file, 'w');
  }

  /** The next bytes of a frame compressed for this archive. */
  write(bytes: Uint8Array): void {
    this.start ??= this.position;
    this.hash ??= crypto.createHash('sha256');
    this.hash.update(bytes);
    this.emit(bytes);
  }

  /** The end of the frame written since the last one; `key` says what it holds, for the index. */
  endFrame(key: string | undefined): void {
    const offset = this.start ?? this.position;
    this.written.push({ key, offset, length: this.position - offset, sha256: (this.hash ?? crypto.createHash('sha256')).digest('hex') });
    this.start = undefined;
    this.hash = undefined;
  }

  /** A whole frame of the previous archive, whose bytes are those the index recorded (PreviousFrames.find). */
  copy(from: number, frame: KeptFrame, buffers: BufferPool): void {
    const offset = this.position;
    for (const chunk of readRange(from, frame.offset, frame.offset + frame.length, `the previous archive ended inside a frame it was to give (${frame.length} bytes at ${frame.offset})`, buffers)) this.emit(chunk);
    this.written.push({ key: frame.key, offset, length: frame.length, sha256: frame.sha256 });
  }

  /** Closes the file; returns its size. */
  close(): { bytes: number } {
    this.abandon();
    return { bytes: this.position };
  }

  abandon(): void {
    if (this.descriptor === undefined) return;
    fs.closeSync(this.descriptor);
    this.descriptor = undefined;
  }

  private emit(bytes: Uint8Array): void {
    try {
      for (let at = 0; at < bytes.length; ) at += fs.writeSync(this.descriptor!, bytes, at, bytes.length - at);
    } catch (error) {
      throw namingFile(this.file, error);
    }
    this.position += bytes.length;
  }
}

/** The bytes of a frame's files. */
function bytesOf(job: FrameJob): number {
  return job.entries.reduce((bytes, entry) => bytes + entry.size, 0);
}
