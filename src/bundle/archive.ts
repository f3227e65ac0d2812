// The export as one deterministic `.tar.zst`.
//
// The tar is reproducible: entries sorted bytewise under one top folder,
// `export/`; folders 0755 and files 0644; uid and gid 0 with empty owner names;
// one fixed mtime, SOURCE_DATE_EPOCH when it is set and otherwise the time of
// the newest landed file (read from its name), never the clock. So the same
// export archived twice is the same bytes. GNU `tar --zstd -x` extracts it
// and `zstd -t` accepts it.
//
// The tar is laid out here (TarWriter, with tar-stream's header encoder) and
// compressed by zstd-napi (zstd 1.5.7 through Node-API), streaming, with
// frame checksums on. The design card named zstd-codec, but measured
// (research/bundles-and-static-sites.md §2) it aborts on inputs over 8-16 MiB,
// fails at level 11 and above, cannot write a checksum (a flipped bit decodes
// silently), and is not a true stream; zstd-napi streams with bounded memory,
// at 127 MB/s fs to fs, and writes standard frames the CLI reads. It builds
// from source with node-gyp when no prebuilt binary can be fetched, as here.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type * as Zstd from 'zstd-napi/binding.js';
import { parseLandedName } from '../landing/layout.ts';
import { removeWhatEndedProcessesLeft } from '../landing/process.ts';
import { compareBytes, exportFiles } from './manifest.ts';
import { UNOBSERVED, type StepObserver } from './steps.ts';

const require = createRequire(import.meta.url);
const zstd = require('zstd-napi/binding.js') as typeof Zstd;

interface TarHeader {
  readonly name: string;
  readonly type: 'file' | 'directory' | 'pax-header';
  readonly mode: number;
  readonly size: number;
  readonly mtime: Date;
  readonly uid: number;
  readonly gid: number;
  readonly uname: string;
  readonly gname: string;
}

/**
 * tar-stream's own header encoder, the one its pack stream used here before:
 * archives stay the bytes they were. The package exports only its streams,
 * whose per-file buffers and stream turns were most of the archive step
 * (below), so the file is loaded by its path; the version is pinned.
 */
const tarHeaders = require(path.join(path.dirname(require.resolve('tar-stream')), 'headers.js')) as {
  encode(header: TarHeader): Buffer | null;
  encodePax(options: { name: string }): Buffer;
};

export const ARCHIVE_TOP = 'export';
export const COMPRESSION_LEVEL = 3;
// zstd's own worker threads: measured on the 392 MB export of the benchmark,
// 2,455 ms with none against GNU tar's 976 ms. The number is fixed rather
// than taken from the machine, because an archive must be the same bytes
// wherever it is made: none and some give different bytes (one and two were
// measured to give the same).
export const COMPRESSION_WORKERS = 2;

/** Where the archive is written before it is renamed into place. */
function temporaryArchive(archive: string): string {
  return `${archive}.${process.pid}.tmp`;
}

/** Removes what an interrupted or crashed archiver left beside `archive`: `<archive>.<pid>.tmp` of a process no longer running. */
function removeAbandonedArchives(archive: string): void {
  const prefix = `${path.basename(archive)}.`;
  removeWhatEndedProcessesLeft(path.dirname(archive), (name) => (name.startsWith(prefix) ? /^(\d+)\.tmp$/.exec(name.slice(prefix.length))?.[1] : undefined));
}

/** The archive's one mtime: SOURCE_DATE_EPOCH, else the newest landed file's time. */
export function archiveTime(exportFolder: string, environment: NodeJS.ProcessEnv = process.env, files: readonly string[] = exportFiles(exportFolder).files): Date {
  const epoch = environment.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && /^\d+$/.test(epoch)) return new Date(Number(epoch) * 1000);
  let newest = 0;
  for (const file of files) {
    const parsed = parseLandedName(path.basename(file));
    if (!parsed) continue;
    const time = Date.parse(parsed.time.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})/, '$1-$2-$3T$4:$5:$6'));
    if (Number.isFinite(time)) newest = Math.max(newest, time);
  }
  return new Date(Math.floor(newest / 1000) * 1000);
}

export async function writeArchive(exportFolder: string, archive: string, options: { mtime?: Date; observer?: StepObserver } = {}): Promise<{ archive: string; bytes: number; entries: number }> {
  const observer = options.observer ?? UNOBSERVED;
  observer.step('archive');
  const { files, strange } = exportFiles(exportFolder);
  const mtime = options.mtime ?? archiveTime(exportFolder, process.env, files);
  if (strange.length > 0) throw new Error(`${exportFolder}: ${strange[0]!.path} is ${strange[0]!.what}; an export holds regular files only`);
  const folders = new Set<string>();
  for (const file of files) for (let at = path.posix.dirname(file); at !== '.'; at = path.posix.dirname(at)) folders.add(at);
  const names = [...[...folders].map((folder) => ({ name: `${folder}/`, file: undefined as string | undefined })), ...files.map((file) => ({ name: file, file }))].sort((a, b) => compareBytes(a.name, b.name));

  removeAbandonedArchives(archive);
  const temporary = temporaryArchive(archive);
  const common = { mtime, uid: 0, gid: 0, uname: '', gname: '' };
  const output = new CompressedFile(temporary);
  const tar = new TarWriter(output);
  try {
    tar.entry({ ...common, name: `${ARCHIVE_TOP}/`, type: 'directory', mode: 0o755, size: 0 });
    for (const { name, file } of names) {
      if (file === undefined) {
        tar.entry({ ...common, name: `${ARCHIVE_TOP}/${name}`, type: 'directory', mode: 0o755, size: 0 });
        continue;
      }
      const source = path.join(exportFolder, file);
      const descriptor = fs.openSync(source, 'r');
      try {
        const size = fs.fstatSync(descriptor).size;
        tar.entry({ ...common, name: `${ARCHIVE_TOP}/${file}`, type: 'file', mode: 0o644, size }, descriptor, source);
        observer.advance(1, size);
      } finally {
        fs.closeSync(descriptor);
      }
      // Reading and compressing are synchronous; the command's other work
      // (the removal of the replaced export, signals, progress) gets a turn.
      if (tar.sentSinceAsked()) await nextTurn();
    }
    tar.end();
    output.end();
    fs.renameSync(temporary, archive);
  } catch (error) {
    output.abandon();
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  return { archive, bytes: fs.statSync(archive).size, entries: names.length + 1 };
}

/**
 * The tar stream, laid out in one buffer that is used again and again: file
 * bytes are read straight into it and it goes to the compressor whenever it
 * is full. Measured on the 560 MB export of the 200 MB benchmark corpus, the
 * archive step took 2.5-2.9 s against GNU tar's 1.35-1.5 s, though zstd-napi
 * compresses that tar in 0.73 s on its two workers: the rest was a fresh
 * buffer per file (reading 560 MB into new buffers took 0.66-0.93 s, where
 * GNU tar reads and writes it in 0.48 s), their collection, and the turns of
 * the streams from file to tar to compressor.
 */
class TarWriter {
  private readonly staging = Buffer.allocUnsafe(STAGING_BYTES);
  private used = 0;
  private sent = false;

  constructor(private readonly output: CompressedFile) {}

  /** Whether the buffer went to the compressor since the last time this was asked. */
  sentSinceAsked(): boolean {
    const sent = this.sent;
    this.sent = false;
    return sent;
  }

  /** An entry: its header, as tar-stream's pack lays it out, then `size` bytes of `descriptor` and the padding to a whole block. */
  entry(header: TarHeader, descriptor?: number, source?: string): void {
    const encoded = tarHeaders.encode(header);
    if (encoded) this.put(encoded);
    else {
      // A name too long for a ustar header goes in a pax header before it.
      const pax = tarHeaders.encodePax({ name: header.name });
      this.put(tarHeaders.encode({ ...header, name: 'PaxHeader', type: 'pax-header', size: pax.length })!);
      this.put(pax);
      this.pad(pax.length);
      this.put(tarHeaders.encode({ ...header, name: 'PaxHeader' })!);
    }
    if (descriptor === undefined) return;
    let left = header.size;
    let position = 0;
    while (left > 0) {
      if (this.used === this.staging.length) this.send();
      const read = fs.readSync(descriptor, this.staging, this.used, Math.min(left, this.staging.length - this.used), position);
      if (read === 0) throw new Error(`${source}: the file shrank while it was archived (${header.size} bytes when it was opened, ${position} read)`);
      this.used += read;
      position += read;
      left -= read;
    }
    this.pad(header.size);
  }

  /** The two zero blocks that end a tar, then everything to the compressor. */
  end(): void {
    this.put(ZERO_BLOCKS);
    this.send();
  }

  private pad(size: number): void {
    const rest = size % 512;
    if (rest > 0) this.put(ZERO_BLOCKS.subarray(0, 512 - rest));
  }

  private put(bytes: Buffer): void {
    let at = 0;
    while (at < bytes.length) {
      if (this.used === this.staging.length) this.send();
      const copied = bytes.copy(this.staging, this.used, at);
      this.used += copied;
      at += copied;
    }
  }

  private send(): void {
    this.output.write(this.staging.subarray(0, this.used));
    this.used = 0;
    this.sent = true;
  }
}

/** Two zero blocks: a tar's end, and the source of every entry's padding. */
const ZERO_BLOCKS = Buffer.alloc(1024);

/** How much of the tar is laid out before it goes to the compressor. */
const STAGING_BYTES = 8 << 20;

/**
 * A zstd frame written to a file as its input comes, through zstd-napi's
 * binding rather than its stream, so that what it is given can be used again
 * as soon as it returns: zstd copies its input before it hands it to its
 * workers. The bytes are the stream's (same parameters, one frame).
 */
class CompressedFile {
  private readonly context = new zstd.CCtx();
  private readonly out = Buffer.allocUnsafe(1 << 20);
  private descriptor: number | undefined;

  constructor(file: string) {
    this.context.setParameter(zstd.CParameter.compressionLevel, COMPRESSION_LEVEL);
    this.context.setParameter(zstd.CParameter.checksumFlag, 1);
    this.context.setParameter(zstd.CParameter.nbWorkers, COMPRESSION_WORKERS);
    this.descriptor = fs.openSync(file, 'w');
  }

  write(bytes: Uint8Array): void {
    let input = bytes;
    while (input.length > 0) {
      const [, produced, consumed] = this.context.compressStream2(this.out, input, zstd.EndDirective.continue);
      this.emit(produced);
      input = input.subarray(consumed);
    }
  }

  /** Ends the frame and closes the file. */
  end(): void {
    for (;;) {
      const [remaining, produced] = this.context.compressStream2(this.out, EMPTY, zstd.EndDirective.end);
      this.emit(produced);
      if (remaining === 0) break;
    }
    this.close();
  }

  /** Closes the file, written or not, and lets the compressor's workers go. */
  abandon(): void {
    this.context.reset(zstd.ResetDirective.sessionOnly);
    this.close();
  }

  private emit(produced: number): void {
    let at = 0;
    while (at < produced) at += fs.writeSync(this.descriptor!, this.out, at, produced - at);
  }

  private close(): void {
    if (this.descriptor === undefined) return;
    fs.closeSync(this.descriptor);
    this.descriptor = undefined;
  }
}

const EMPTY = new Uint8Array(0);
