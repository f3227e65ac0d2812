// Verifies a `.tar.zst` as a stream: it is decompressed and read entry by
// entry, every file hashed on the way, and nothing is ever written to disk.
//
// The archive layer is not trusted. It is read as GNU tar extracts it, or the
// read stops with the reason named (tar-reader.ts), so that what verify calls
// intact is what `tar --zstd -xf` writes. Every entry must be a regular file
// or a folder under one top folder, at a safe path, and once: an absolute
// path, a `..`, a link of either kind, a device, a duplicate, a path that is
// both a file and a folder, or two names that differ only in case are each
// an error, reported and never followed. A truncated stream or a flipped bit
// (the frames carry checksums) is reported as damage.
//
// Memory stays bounded whatever the archive holds: every entry is hashed as
// it streams; landed files and `.sd` are read line by line, each line at most
// LONGEST_LINE (evidence.ts) and each such file at most PARSED_ENTRY_BYTES;
// the entries held whole until the end (the manifest and its twin, the root
// digest, rounds and branch records) at most HELD_ENTRY_BYTES each and
// HELD_BYTES in all. An entry past its bound stops the read at its header,
// before a byte of it is held. Once the manifest has streamed past, an entry
// larger than it lists stops the read at its header too, and an entry it does
// not vouch for at its size is hashed and reported but not parsed; before
// then (the manifest follows the bundle in an archive the export writes) the
// bounds above are what holds.
//
// Then the same checks as for an export folder run on what was read: the
// root digest, the manifest, every file's size and hash, missing and extra
// files, the bundle's evidence (evidence.ts, fed each landed file and `.sd`
// as it streams past), every round chain and branch record, and each round's
// input digest against the landed files it covers.
//
// With `deep`, each landed file's `.sd` is derived again as the file streams
// past and compared with the archived one, and at the end of the stream each
// conversation is assembled again from the rows derived again and compared
// with what its rounds fold to: one decompression, in whatever order the
// archive holds its entries. The site is proved too (site.ts): the bundle's
// files, and nothing else of the archive, are written as they stream past
// into a private temporary folder, each at most WRITTEN_ENTRY_BYTES; the site
// is rendered again from there, and each of its files compared by SHA-256
// with the archive's, hashed as they streamed past. The folder is removed
// when the verify ends, whatever happened.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { checkBranchRecord } from '../branches/explicit.ts';
import { BUNDLE } from '../bundle/manifest.ts';
import { MANIFEST, META_FILES, PLAIN_MANIFEST, ROOT_DIGEST, unsafePath } from '../bundle/manifest.ts';
import { KnownFolders } from '../files/atomic-file.ts';
import { ZstdDecompression } from '../files/zstd.ts';
import { COLLECT_LOCK, RUNS, SESSION_INDEX, SESSION_STATE, STREAMS } from '../landing/layout.ts';
import { ChainError, checkInputDigests, checkLinks, emptyFold, foldRound, parseRound } from '../session-flow/chain.ts';
import { compareAssembly } from './chains.ts';
import { EvidenceCheck, type ChunkSink } from './evidence.ts';
import { checkManifest, readManifest, type ExportReport, type ManifestRead, type PresentFile } from './export.ts';
import { checkSite, inScratchFolder } from './site.ts';
import type { Problem, VerifyOptions } from './storage.ts';
import { ArchiveReadError, TarReader, type EntrySink, type TarEntry } from './tar-reader.ts';

const ROUND = /^bundle\/_conversations\/([^/]+)\/rounds\/r(\d{6,})-[0-9a-f]{12}\.sf$/;
const CONVERSATION = /^bundle\/_conversations\/([^/]+)\//;
const BRANCH = /^bundle\/_conversations\/([^/]+)\/branches\/([^/]+\.json)$/;

// What a session's folder may hold besides its evidence, as for a folder
// (storage.ts): an export leaves these behind, but a bundle that holds one is
// not damaged. Anything else in a session's folder is out of place.
const SESSION_FILES = new RegExp(`^${BUNDLE}/[^_/][^/]*/(${[SESSION_STATE, COLLECT_LOCK, SESSION_INDEX].map((name) => name.replaceAll('.', '\\.')).join('|')}|(${STREAMS}|${RUNS})/[^/]+/[^/]+\\.cursor)$`);

/** Past this size an entry held whole until the stream ends (the manifest, its plain twin, the root digest, a round, a branch record) stops the read. */
export const HELD_ENTRY_BYTES = 128 << 20;
/** Past this many bytes held in all, the read stops. */
export const HELD_BYTES = 512 << 20;
/**
 * Past this size a landed file or `.sd`, read line by line, stops the read:
 * a landed file is closed once past 32 MiB, so it holds that and one line,
 * which may be at most LONGEST_LINE (evidence.ts).
 */
export const PARSED_ENTRY_BYTES = 128 << 20;
/**
 * Past this size, with `deep`, a bundle file written out for the site to be
 * rendered from stops the read: a bundle's largest files are its landed
 * files, `.sd` and rounds, held to the bounds above.
 */
export const WRITTEN_ENTRY_BYTES = 128 << 20;

export async function verifyArchive(file: string, options: VerifyOptions = {}): Promise<ExportReport> {
  if (!options.deep) return readArchive(file, options, undefined);
  return inScratchFolder((scratch) => readArchive(file, options, scratch));
}

/** Verifies the archive; with `scratch` (for `deep`), its bundle is written out there and its site rendered again from it. */
async function readArchive(file: string, options: VerifyOptions, scratch: string | undefined): Promise<ExportReport> {
  const problems: Problem[] = [];
  const problem = (where: string, what: string): void => void problems.push({ path: where, what });
  const present = new Map<string, PresentFile>();
  const kept = new Map<string, Buffer>();
  const folded = new Map<string, string>();
  const paths = new PathKinds();
  let top: string | undefined;
  let heldBytes = 0;
  /** The manifest, read as it streams past, and then each file it lists with its size: what it vouches for. */
  let manifest: ManifestRead | undefined;
  let listed: Map<string, number> | undefined;
  const evidence = new EvidenceCheck(options);
  const written = scratch !== undefined ? new WrittenBundle(path.join(scratch, BUNDLE)) : undefined;

  const reader = new TarReader((entry: TarEntry): EntrySink | undefined => {
    const name = entry.name;
    const bare = name.replace(/\/$/, '');
    const unsafe = unsafePath(bare);
    if (unsafe) {
      problem(name, `an archive entry where ${unsafe}; it was not read`);
      return undefined;
    }
    const [first, ...rest] = bare.split('/');
    top ??= first;
    if (first !== top) {
      problem(name, `outside the archive's one top folder ${top}`);
      return undefined;
    }
    const relative = rest.join('/');
    if (entry.type !== 'file' && entry.type !== 'directory') {
      problem(name, `a ${entry.type}; an export holds regular files only, and it was not followed`);
      return undefined;
    }
    if (entry.type === 'file' && relative === '') {
      problem(name, 'a file where the top folder should be');
      return undefined;
    }
    const clash = paths.claim(bare, entry.type === 'directory' ? 'folder' : 'file');
    if (clash) {
      problem(name, clash);
      return undefined;
    }
    if (entry.type === 'directory') {
      // As tar makes it: a folder of the bundle is read by the site even when it holds no file.
      if (relative.startsWith(`${BUNDLE}/`)) written?.folder(name, relative.slice(BUNDLE.length + 1));
      return undefined;
    }
    const lower = relative.toLowerCase();
    const collision = folded.get(lower);
    if (collision !== undefined) problem(name, `differs only in case from ${top}/${collision}, which would collide on a case-insensitive disk`);
    folded.set(lower, relative);

    const meta = META_FILES.has(relative);
    const vouched = listed?.get(relative);
    if (vouched !== undefined && entry.size > vouched) throw new ArchiveReadError(name, `${entry.size} bytes, more than the ${vouched} the manifest lists it with`);
    // Once the manifest is known, only what it lists at this size is parsed; the rest is hashed, to be reported.
    const trusted = meta || listed === undefined || vouched === entry.size;
    const keep = trusted && (meta || ROUND.test(relative) || BRANCH.test(relative));
    if (keep) {
      if (entry.size > HELD_ENTRY_BYTES) throw new ArchiveReadError(name, `${entry.size} bytes, more than the ${HELD_ENTRY_BYTES} an entry verify holds whole may have`);
      heldBytes += entry.size;
      if (heldBytes > HELD_BYTES) throw new ArchiveReadError(name, `the entries verify holds whole come to more than ${HELD_BYTES} bytes with this one`);
    }
    const inBundle = relative.startsWith(`${BUNDLE}/`) ? relative.slice(BUNDLE.length + 1) : undefined;
    let checked: ChunkSink | undefined;
    if (inBundle !== undefined && EvidenceCheck.holds(inBundle)) {
      if (entry.size > PARSED_ENTRY_BYTES) throw new ArchiveReadError(name, `${entry.size} bytes, more than the ${PARSED_ENTRY_BYTES} a landed file or .sd may have`);
      if (trusted) checked = evidence.file(inBundle);
    }
    // As for a folder (storage.ts), only a session's folder is held to the layout.
    else if (inBundle !== undefined && inBundle.includes('/') && !/^[_.]/.test(inBundle) && !SESSION_FILES.test(relative)) problem(relative, 'a file the storage layout has no place for');
    // Not a second file at a path that differs only in case, which a case-insensitive disk would make one.
    const copy = inBundle !== undefined && collision === undefined ? written?.file(name, inBundle, entry.size) : undefined;
    const hash = crypto.createHash('sha256');
    const pieces: Buffer[] = [];
    let size = 0;
    return {
      push: (chunk) => {
        hash.update(chunk);
        size += chunk.length;
        // Copied: the decompressor may reuse the memory of what it hands on.
        if (keep) pieces.push(Buffer.from(chunk));
        checked?.push(chunk);
        copy?.push(chunk);
      },
      end: () => {
        checked?.end();
        copy?.end();
        if (keep) kept.set(relative, Buffer.concat(pieces));
        if (!meta) present.set(relative, { size, sha256: hash.digest('hex') });
        else if (relative === MANIFEST) {
          manifest = readManifest(kept.get(MANIFEST)!);
          listed = manifest.manifest && new Map(manifest.manifest.files.map((listedFile) => [listedFile.path, listedFile.size]));
        }
      },
    };
  });

  try {
    await decompressed(file, (piece) => reader.push(piece));
    reader.end();
  } catch (error) {
    // Nothing read after this can be trusted to mean what it says: the rest of the checks are not run.
    if (error instanceof ArchiveReadError) problem(error.entry ?? file, error.message);
    else problem(file, `the archive is cut short or damaged: ${(error as Error).message}`);
    written?.close();
    return { files: 0, bytes: 0, sessions: 0, landedFiles: 0, records: 0, chains: 0, rounds: 0, problems, notes: [] };
  }

  const checked = checkManifest(present, { manifest, rootDigest: kept.get(ROOT_DIGEST)?.toString('utf8'), plain: kept.get(PLAIN_MANIFEST)?.toString('utf8') });
  problems.push(...checked.problems);
  const verified = evidence.finish();
  problems.push(...verified.problems.map((entry) => ({ path: `${BUNDLE}/${entry.path}`, what: entry.what })));

  // Round chains and branch records, from the bytes held in memory. Each
  // round is parsed once, in the order its name gives (parseRound checks the
  // name against the header), and with `deep` folded as it is read.
  const chains = new Map<string, { round: number; relative: string }[]>();
  let rounds = 0;
  for (const [relative, bytes] of kept) {
    const round = ROUND.exec(relative);
    if (round) {
      rounds++;
      chains.set(round[1]!, [...(chains.get(round[1]!) ?? []), { round: Number(round[2]), relative }]);
      continue;
    }
    if (BRANCH.test(relative)) {
      const branch = checkBranchRecord(relative, bytes);
      if (!branch.intact) problem(relative, branch.problem!);
    }
  }
  for (const [conversation, files] of chains) {
    files.sort((a, b) => a.round - b.round);
    const folded = emptyFold();
    let readable = true;
    for (const { relative } of files) {
      try {
        const round = parseRound(kept.get(relative)!, relative);
        if (options.deep) foldRound(folded, round);
        else {
          const { entities: _entities, ...head } = round;
          folded.rounds.push(head);
        }
      } catch (error) {
        if (!(error instanceof ChainError)) throw error;
        problem(relative, error.message.replace(`${relative}: `, ''));
        readable = false;
      }
    }
    const links = checkLinks(folded.rounds);
    for (const link of [...links, ...checkInputDigests(folded.rounds, (session) => verified.landed.get(session) ?? [])]) {
      const [where, ...what] = link.split(': ');
      problem(where!, what.join(': '));
    }
    if (options.deep && readable && links.length === 0) {
      const mismatch = compareAssembly(conversation, folded, verified.indexes);
      if (mismatch) problem(`${BUNDLE}/_conversations/${conversation}`, mismatch);
    }
  }
  const holdsBundle = [...present.keys()].some((relative) => relative.startsWith(`${BUNDLE}/`));
  if (!holdsBundle) problem(BUNDLE, 'the archive holds no bundle');
  const site = written !== undefined && holdsBundle ? await checkSite(written.root, present, scratch!) : undefined;
  if (site) problems.push(...site.problems);
  return {
    files: checked.manifest?.files.length ?? 0,
    bytes: checked.bytes,
    rootDigest: kept.get(ROOT_DIGEST)?.toString('utf8').trim(),
    sessions: verified.sessions,
    landedFiles: verified.landedFiles,
    records: verified.records,
    chains: new Set([...present.keys()].flatMap((relative) => CONVERSATION.exec(relative)?.[1] ?? [])).size,
    rounds,
    ...(site ? { siteFiles: site.files } : {}),
    problems,
    notes: site?.notes ?? [],
  };
}

/**
 * With `deep`, the bundle's files and folders written out as they stream
 * past, under `root`, for the site to be rendered from (site.ts). Only
 * entries the archive holds once, at a safe path inside the bundle, are
 * written.
 */
class WrittenBundle {
  private readonly folders = new KnownFolders();
  /** The file being written, until its entry ends. */
  private descriptor: number | undefined;

  constructor(readonly root: string) {}

  file(name: string, inBundle: string, size: number): ChunkSink {
    if (size > WRITTEN_ENTRY_BYTES) throw new ArchiveReadError(name, `${size} bytes, more than the ${WRITTEN_ENTRY_BYTES} a bundle file verify --deep writes out to render the site from may have`);
    const target = path.join(this.root, ...inBundle.split('/'));
    const descriptor = this.attempt(name, () => {
      this.folders.ensure(path.dirname(target));
      return fs.openSync(target, 'wx', 0o600);
    });
    this.descriptor = descriptor;
    return {
      push: (chunk) =>
        this.attempt(name, () => {
          for (let offset = 0; offset < chunk.length; ) offset += fs.writeSync(descriptor, chunk, offset);
        }),
      end: () => this.close(),
    };
  }

  folder(name: string, inBundle: string): void {
    this.attempt(name, () => this.folders.ensure(path.join(this.root, ...inBundle.split('/'))));
  }

  /** Closes the file being written, if any: at the end of its entry, or when the read stopped inside it. */
  close(): void {
    if (this.descriptor !== undefined) fs.closeSync(this.descriptor);
    this.descriptor = undefined;
  }

  /** A file that cannot be written (a full disk) stops the read, said in one line on its entry. */
  private attempt<Result>(name: string, write: () => Result): Result {
    try {
      return write();
    } catch (error) {
      throw new ArchiveReadError(name, `could not be written out for the site to be rendered again from: ${(error as Error).message}`);
    }
  }
}

/**
 * What each path in the archive is, a file or a folder, for the paths GNU
 * tar would make one thing of: a folder entry at a file's path, or a path
 * inside a file, makes GNU tar replace the file; a second file at one path
 * replaces the first.
 */
class PathKinds {
  private readonly files = new Set<string>();
  private readonly folders = new Set<string>();

  /** The problem with `path` being of `kind`, or nothing when it is not one. */
  claim(path: string, kind: 'file' | 'folder'): string | undefined {
    const parts = path.split('/');
    for (let count = 1; count < parts.length; count++) {
      const folder = parts.slice(0, count).join('/');
      if (this.files.has(folder)) return `a path inside ${folder}, which is a file: it is both a file and a folder`;
      this.folders.add(folder);
    }
    if (kind === 'folder') {
      if (this.files.has(path)) return 'a folder entry at the path of a file: it is both a file and a folder';
      this.folders.add(path);
      return undefined;
    }
    if (this.files.has(path)) return 'a second entry with the same name';
    if (this.folders.has(path)) return 'a file entry at the path of a folder: it is both a file and a folder';
    this.files.add(path);
    return undefined;
  }
}

/** The archive's bytes decompressed, each piece handed to `onPiece` before the next is made: `onPiece` copies what it keeps. */
async function decompressed(file: string, onPiece: (piece: Buffer) => void): Promise<void> {
  const decompression = new ZstdDecompression();
  for await (const chunk of fs.createReadStream(file, { highWaterMark: ZstdDecompression.INPUT_BYTES })) decompression.push(chunk as Buffer, onPiece);
  decompression.end();
}
