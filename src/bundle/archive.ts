// The export as one deterministic `.tar.zst`.
//
// The tar is reproducible: entries sorted bytewise under one top folder,
// `export/`; folders 0755 and files 0644; uid and gid 0 with empty owner names;
// one fixed mtime, SOURCE_DATE_EPOCH when it is set and otherwise the time of
// the newest landed file (read from its name), never the clock. So the same
// export archived twice is the same bytes. GNU `tar --zstd -x` extracts it
// and `zstd -t` accepts it.
//
// The compressor is zstd-napi (zstd 1.5.7 through Node-API), streaming, with
// frame checksums on. The design card named zstd-codec, but measured
// (research/bundles-and-static-sites.md §2) it aborts on inputs over 8-16 MiB,
// fails at level 11 and above, cannot write a checksum (a flipped bit decodes
// silently), and is not a true stream; zstd-napi streams with bounded memory,
// at 127 MB/s fs to fs, and writes standard frames the CLI reads. It builds
// from source with node-gyp when no prebuilt binary can be fetched, as here.

import fs from 'node:fs';
import path from 'node:path';
import tar from 'tar-stream';
import { CompressStream } from 'zstd-napi';
import { parseLandedName } from '../landing/layout.ts';
import { removeWhatEndedProcessesLeft } from '../landing/process.ts';
import { compareBytes, exportFiles } from './manifest.ts';
import { UNOBSERVED, type StepObserver } from './steps.ts';

export const ARCHIVE_TOP = 'export';
export const COMPRESSION_LEVEL = 3;
// zstd's own worker threads: measured on the 392 MB export of the benchmark,
// 2,455 ms with none against GNU tar's 976 ms. The number is fixed rather
// than taken from the machine, because the compressed bytes depend on it and
// an archive must be the same bytes wherever it is made.
export const COMPRESSION_WORKERS = 2;
const WHOLE_FILE_BYTES = 4 << 20;
const READ_AHEAD_FILES = 16;
const READ_AHEAD_BYTES = 32 << 20;

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
export function archiveTime(exportFolder: string, environment: NodeJS.ProcessEnv = process.env): Date {
  const epoch = environment.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && /^\d+$/.test(epoch)) return new Date(Number(epoch) * 1000);
  let newest = 0;
  for (const file of exportFiles(exportFolder).files) {
    const parsed = parseLandedName(path.basename(file));
    if (!parsed) continue;
    const time = Date.parse(parsed.time.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})/, '$1-$2-$3T$4:$5:$6'));
    if (Number.isFinite(time)) newest = Math.max(newest, time);
  }
  return new Date(Math.floor(newest / 1000) * 1000);
}

export async function writeArchive(exportFolder: string, archive: string, options: { mtime?: Date; observer?: StepObserver } = {}): Promise<{ archive: string; bytes: number; entries: number }> {
  const mtime = options.mtime ?? archiveTime(exportFolder);
  const observer = options.observer ?? UNOBSERVED;
  observer.step('archive');
  const { files, strange } = exportFiles(exportFolder);
  if (strange.length > 0) throw new Error(`${exportFolder}: ${strange[0]!.path} is ${strange[0]!.what}; an export holds regular files only`);
  const folders = new Set<string>();
  for (const file of files) for (let at = path.posix.dirname(file); at !== '.'; at = path.posix.dirname(at)) folders.add(at);
  const names = [...[...folders].map((folder) => ({ name: `${folder}/`, file: undefined as string | undefined })), ...files.map((file) => ({ name: file, file }))].sort((a, b) => compareBytes(a.name, b.name));

  removeAbandonedArchives(archive);
  const temporary = temporaryArchive(archive);
  const pack = tar.pack();
  const output = fs.createWriteStream(temporary);
  const compress = new CompressStream({ compressionLevel: COMPRESSION_LEVEL, checksumFlag: true, nbWorkers: COMPRESSION_WORKERS });
  // tar-stream's pack is a streamx stream, so it is piped rather than handed to Node's pipeline.
  const written = new Promise<void>((resolve, reject) => {
    compress.on('error', reject);
    output.on('error', reject);
    output.on('close', resolve);
    pack.pipe(compress).pipe(output);
  });
  const common = { mtime, uid: 0, gid: 0, uname: '', gname: '' };
  const ahead = new ReadAhead(exportFolder, names.flatMap(({ file }) => (file === undefined ? [] : [file])));
  try {
    pack.entry({ ...common, name: `${ARCHIVE_TOP}/`, type: 'directory', mode: 0o755 });
    for (const { name, file } of names) {
      if (file === undefined) {
        pack.entry({ ...common, name: `${ARCHIVE_TOP}/${name}`, type: 'directory', mode: 0o755 });
        continue;
      }
      const source = path.join(exportFolder, file);
      const { size, bytes } = await ahead.next();
      const header = { ...common, name: `${ARCHIVE_TOP}/${file}`, type: 'file' as const, mode: 0o644, size };
      await new Promise<void>((resolve, reject) => {
        const done = (error?: Error | null): void => (error ? reject(error) : resolve());
        if (bytes) pack.entry(header, bytes, done);
        else fs.createReadStream(source, { highWaterMark: 1 << 20 }).on('error', reject).pipe(pack.entry(header, done));
      });
      observer.advance(1, size);
    }
    pack.finalize();
    await written;
    fs.renameSync(temporary, archive);
  } catch (error) {
    ahead.abandon();
    pack.destroy();
    await written.catch(() => undefined);
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  return { archive, bytes: fs.statSync(archive).size, entries: names.length + 1 };
}

/**
 * The export's files, read a few ahead of the one being packed. zstd-napi
 * compresses on the calling thread and waits there for its workers, so a
 * file read on that thread as well left the compressor without input while
 * it was read (readFileSync was 363 ms of 2.2 s on the 560 MB export of the
 * benchmark); read on libuv's threads instead, the next files are ready when
 * the compressor asks. Small files are read whole, up to a bounded number of
 * bytes ahead; a large file is only stated, and streamed when its turn comes,
 * so memory stays bounded whatever the size of a file.
 */
class ReadAhead {
  private readonly pending: Promise<{ size: number; bytes?: Buffer }>[] = [];
  private position = 0;
  private bytesAhead = 0;

  constructor(
    private readonly folder: string,
    private readonly files: readonly string[],
  ) {
    this.fill();
  }

  async next(): Promise<{ size: number; bytes?: Buffer }> {
    const content = await this.pending.shift()!;
    if (content.bytes) this.bytesAhead -= content.size;
    this.fill();
    return content;
  }

  /** Lets reads already started finish unobserved, so none rejects unhandled. */
  abandon(): void {
    for (const read of this.pending.splice(0)) read.catch(() => undefined);
  }

  private fill(): void {
    while (this.position < this.files.length && this.pending.length < READ_AHEAD_FILES && this.bytesAhead < READ_AHEAD_BYTES) {
      const source = path.join(this.folder, this.files[this.position++]!);
      const size = fs.statSync(source).size;
      if (size > WHOLE_FILE_BYTES) {
        this.pending.push(Promise.resolve({ size }));
        continue;
      }
      this.bytesAhead += size;
      this.pending.push(fs.promises.readFile(source).then((bytes) => ({ size: bytes.length, bytes })));
    }
  }
}
