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
// Memory stays bounded whatever the archive holds (bounds.ts): every entry
// is hashed as it streams; landed files, `.sd` and rounds are read line by
// line, each line and each such file within its bound; the entries held
// whole until the end (the manifest and its twin, the root digest, and with
// `deep` the rounds) within theirs and HELD_BYTES in all. An entry past its
// bound stops the read at its header, before a byte of it is held. Until the
// manifest has streamed past (it follows the bundle in an archive the export
// writes), each file's path, size and digest is held, for at most
// ENTRIES_BEFORE_MANIFEST files; after it, an entry larger than it lists
// stops the read at its header, one it lists at another size is hashed and
// reported but not parsed, and one it does not list costs a count.
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
import { ChainError, checkInputDigests, checkLinks, emptyFold, foldRound, LONGEST_ROUND_LINE, parseRound, RoundLines, type RoundHead } from '../session-flow/chain.ts';
import { BRANCH_RECORD_BYTES, ExtraFiles, ENTRIES_BEFORE_MANIFEST, MANIFEST_BYTES, PARSED_ENTRY_BYTES, pastBound, PROBLEMS_NAMED, ProblemsUpTo, ROOT_DIGEST_BYTES, ROUND_BYTES } from './bounds.ts';
import { compareAssembly } from './chains.ts';
import { EvidenceCheck, LineSplitter, type ChunkSink } from './evidence.ts';
import { checkManifest, listingOf, readManifest, type ExportReport, type Listing, type ManifestRead, type MetaFile, type PresentFile } from './export.ts';
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

/** Past this many bytes held whole until the stream ends (the manifest and its twin, the root digest, with `deep` the rounds), the read stops. */
export const HELD_BYTES = 512 << 20;

/** What the manifest vouches for, once it has streamed past: each file it lists, by its path, by its path in lower case, and the folders they are in. */
interface Vouched {
  readonly listing: Listing;
  readonly lower: Map<string, string>;
  readonly folders: Set<string>;
}

function vouchedBy(listing: Listing): Vouched {
  const lower = new Map<string, string>();
  const folders = new Set<string>();
  for (const relative of listing.listed.keys()) {
    lower.set(relative.toLowerCase(), relative);
    for (let slash = relative.indexOf('/'); slash >= 0; slash = relative.indexOf('/', slash + 1)) folders.add(relative.slice(0, slash));
  }
  return { listing, lower, folders };
}

/** A round read as it streams past, line by line: its head, or why it cannot be read. */
function roundReader(relative: string): { sink: ChunkSink; result: () => RoundHead | ChainError } {
  const round = new RoundLines(relative, () => {});
  let tooLong = false;
  const splitter = new LineSplitter((line) => round.line(line.subarray(0, line.length - 1)), () => (tooLong = true), LONGEST_ROUND_LINE);
  let result: RoundHead | ChainError | undefined;
  return {
    sink: {
      push: (chunk) => splitter.push(chunk),
      end: () => {
        if (tooLong) result = new ChainError(`${relative}: line ${round.lines + 1} is longer than ${LONGEST_ROUND_LINE} bytes, the longest line a round may have; the rest of the round was not read`);
        else {
          try {
            const { entities: _entities, ...head } = round.end(splitter.trailingBytes);
            result = head;
          } catch (error) {
            if (!(error instanceof ChainError)) throw error;
            result = error;
          }
        }
      },
    },
    result: () => result!,
  };
}

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
  // An archive may hold any number of wrong entries: the first are named, the rest counted.
  const entryProblems = new ProblemsUpTo(PROBLEMS_NAMED, (more, all) => ({ path: file, what: `${more} more entries with a problem, ${all} in all; the first ${all - more} are named` }));
  const entryProblem = (where: string, what: string): void => entryProblems.add(where, what);
  /** Every file with its size and digest until the manifest has streamed past; from then on, those it lists. */
  let present = new Map<string, PresentFile>();
  const extras = new ExtraFiles();
  const kept = new Map<string, Buffer>();
  const folded = new Map<string, string>();
  const paths = new PathKinds();
  let top: string | undefined;
  let heldBytes = 0;
  /** The manifest, read as it streams past, and then what it vouches for. */
  let manifest: ManifestRead | undefined;
  let vouched: Vouched | undefined;
  const before = { files: 0, folders: 0 };
  /** Each conversation's rounds, in the order the archive holds them, each read as it streamed past (with `deep`, held whole instead). */
  const chains = new Map<string, { round: number; relative: string; read?: () => RoundHead | ChainError }[]>();
  const branchProblems: Problem[] = [];
  const evidence = new EvidenceCheck(options);
  const written = scratch !== undefined ? new WrittenBundle(path.join(scratch, BUNDLE)) : undefined;

  const reader = new TarReader((entry: TarEntry): EntrySink | undefined => {
    const name = entry.name;
    const bare = name.replace(/\/$/, '');
    const unsafe = unsafePath(bare);
    if (unsafe) {
      entryProblem(name, `an archive entry where ${unsafe}; it was not read`);
      return undefined;
    }
    const [first, ...rest] = bare.split('/');
    top ??= first;
    if (first !== top) {
      entryProblem(name, `outside the archive's one top folder ${top}`);
      return undefined;
    }
    const relative = rest.join('/');
    if (entry.type !== 'file' && entry.type !== 'directory') {
      entryProblem(name, `a ${entry.type}; an export holds regular files only, and it was not followed`);
      return undefined;
    }
    if (entry.type === 'file' && relative === '') {
      entryProblem(name, 'a file where the top folder should be');
      return undefined;
    }
    const meta = META_FILES.has(relative);
    if (vouched !== undefined && !meta && (entry.type === 'directory' ? !vouched.folders.has(relative) && relative !== '' : !vouched.listing.listed.has(relative))) {
      // Past the manifest, what it does not list costs a count: it is checked
      // only against what it lists, which is all it can clash with there.
      const clash = clashWithListed(relative, entry.type, vouched);
      if (clash) entryProblem(name, clash);
      if (entry.type === 'directory') return undefined;
      const collision = vouched.lower.get(relative.toLowerCase());
      if (collision !== undefined) entryProblem(name, `differs only in case from ${top}/${collision}, which would collide on a case-insensitive disk`);
      extras.add(relative);
      return undefined;
    }
    if (vouched === undefined && !meta) {
      const count = entry.type === 'directory' ? ++before.folders : ++before.files;
      if (count > ENTRIES_BEFORE_MANIFEST) throw new ArchiveReadError(name, `more than ${ENTRIES_BEFORE_MANIFEST} ${entry.type === 'directory' ? 'folders' : 'files'} before the manifest, the most verify holds until the manifest says which it lists`);
    }
    const clash = paths.claim(bare, entry.type === 'directory' ? 'folder' : 'file');
    if (clash) {
      entryProblem(name, clash);
      return undefined;
    }
    if (entry.type === 'directory') {
      // As tar makes it: a folder of the bundle is read by the site even when it holds no file.
      if (relative.startsWith(`${BUNDLE}/`)) written?.folder(name, relative.slice(BUNDLE.length + 1));
      return undefined;
    }
    const lower = relative.toLowerCase();
    const collision = folded.get(lower);
    if (collision !== undefined) entryProblem(name, `differs only in case from ${top}/${collision}, which would collide on a case-insensitive disk`);
    folded.set(lower, relative);

    const listedSize = vouched?.listing.listed.get(relative)?.size;
    if (listedSize !== undefined && entry.size > listedSize) throw new ArchiveReadError(name, `${entry.size} bytes, more than the ${listedSize} the manifest lists it with`);
    // Once the manifest is known, only what it lists at this size is parsed; the rest is hashed, to be reported.
    const trusted = meta || vouched === undefined || listedSize === entry.size;
    const round = trusted ? ROUND.exec(relative) : null;
    const branch = trusted && BRANCH.test(relative);
    const keep = meta || (round !== null && options.deep === true);
    if (meta) {
      const bound = relative === ROOT_DIGEST ? ROOT_DIGEST_BYTES : MANIFEST_BYTES;
      const kind = relative === ROOT_DIGEST ? 'a root digest' : relative === MANIFEST ? 'a manifest' : 'a plain manifest';
      if (entry.size > bound) throw new ArchiveReadError(name, pastBound(entry.size, bound, kind));
    }
    if (round !== null && entry.size > ROUND_BYTES) throw new ArchiveReadError(name, pastBound(entry.size, ROUND_BYTES, 'a round'));
    if (branch && entry.size > BRANCH_RECORD_BYTES) throw new ArchiveReadError(name, pastBound(entry.size, BRANCH_RECORD_BYTES, 'a branch record'));
    if (keep) {
      heldBytes += entry.size;
      if (heldBytes > HELD_BYTES) throw new ArchiveReadError(name, `the entries verify holds whole come to more than ${HELD_BYTES} bytes with this one`);
    }
    const inBundle = relative.startsWith(`${BUNDLE}/`) ? relative.slice(BUNDLE.length + 1) : undefined;
    let checked: ChunkSink | undefined;
    if (inBundle !== undefined && EvidenceCheck.holds(inBundle)) {
      if (entry.size > PARSED_ENTRY_BYTES) throw new ArchiveReadError(name, pastBound(entry.size, PARSED_ENTRY_BYTES, 'a landed file or .sd'));
      if (trusted) checked = evidence.file(inBundle);
    }
    // As for a folder (storage.ts), only a session's folder is held to the layout.
    else if (inBundle !== undefined && inBundle.includes('/') && !/^[_.]/.test(inBundle) && !SESSION_FILES.test(relative)) entryProblem(relative, 'a file the storage layout has no place for');
    if (round !== null) {
      const rounds = chains.get(round[1]!) ?? [];
      chains.set(round[1]!, rounds);
      if (options.deep) rounds.push({ round: Number(round[2]), relative });
      else {
        const read = roundReader(relative);
        checked = read.sink;
        rounds.push({ round: Number(round[2]), relative, read: read.result });
      }
    }
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
        if (keep || branch) pieces.push(Buffer.from(chunk));
        checked?.push(chunk);
        copy?.push(chunk);
      },
      end: () => {
        checked?.end();
        copy?.end();
        if (keep) kept.set(relative, Buffer.concat(pieces));
        if (branch) {
          const checkedBranch = checkBranchRecord(relative, Buffer.concat(pieces));
          if (!checkedBranch.intact) branchProblems.push({ path: relative, what: checkedBranch.problem! });
        }
        if (!meta) present.set(relative, { size, sha256: hash.digest('hex') });
        else if (relative === MANIFEST) {
          manifest = readManifest(kept.get(MANIFEST)!);
          kept.delete(MANIFEST);
          heldBytes -= size;
          if (manifest.manifest) {
            vouched = vouchedBy(listingOf(manifest.manifest));
            // What streamed past before it: what it lists is kept, the rest counted.
            const held = present;
            present = new Map();
            for (const [relative, found] of held) {
              if (vouched.listing.listed.has(relative)) present.set(relative, found);
              else extras.add(relative);
            }
          }
        }
      },
    };
  });

  try {
    await decompressed(file, (piece) => reader.push(piece));
    reader.end();
  } catch (error) {
    // Nothing read after this can be trusted to mean what it says: the rest of the checks are not run.
    const stopped = entryProblems.problems();
    if (error instanceof ArchiveReadError) stopped.push({ path: error.entry ?? file, what: error.message });
    else stopped.push({ path: file, what: `the archive is cut short or damaged: ${(error as Error).message}` });
    written?.close();
    return { files: 0, bytes: 0, sessions: 0, landedFiles: 0, records: 0, chains: 0, rounds: 0, problems: stopped, notes: [] };
  }

  for (const entry of entryProblems.problems()) problems.push(entry);
  const metaFile = (name: string): MetaFile | undefined => {
    const bytes = kept.get(name);
    return bytes && { size: bytes.length, read: () => bytes };
  };
  // Entries the manifest does not list are extra only when it was read: without one, none is.
  const checked = checkManifest(present, vouched ? extras : new ExtraFiles(), { manifest, listing: vouched?.listing, rootDigest: metaFile(ROOT_DIGEST), plain: metaFile(PLAIN_MANIFEST) });
  for (const entry of checked.problems) problems.push(entry);
  const verified = evidence.finish();
  for (const entry of verified.problems) problems.push({ path: `${BUNDLE}/${entry.path}`, what: entry.what });
  for (const entry of branchProblems) problems.push(entry);

  // Round chains: each round in the order its name gives (parseRound checks
  // the name against the header); with `deep`, parsed from the bytes held
  // and folded as it is read.
  let rounds = 0;
  for (const [conversation, files] of chains) {
    rounds += files.length;
    files.sort((a, b) => a.round - b.round);
    const folded = emptyFold();
    let readable = true;
    for (const { relative, read } of files) {
      try {
        if (read) {
          const head = read();
          if (head instanceof ChainError) throw head;
          folded.rounds.push(head);
        } else foldRound(folded, parseRound(kept.get(relative)!, relative));
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
  let bundle = false;
  for (const relative of present.keys()) if (relative.startsWith(`${BUNDLE}/`)) bundle = true;
  if (!bundle) problem(BUNDLE, 'the archive holds no bundle');
  const conversations = new Set<string>();
  for (const relative of present.keys()) {
    const conversation = CONVERSATION.exec(relative)?.[1];
    if (conversation !== undefined) conversations.add(conversation);
  }
  const site = written !== undefined && bundle ? await checkSite(written.root, present, scratch!) : undefined;
  if (site) for (const entry of site.problems) problems.push(entry);
  return {
    files: checked.manifest?.files.length ?? 0,
    bytes: checked.bytes,
    rootDigest: checked.rootDigest,
    sessions: verified.sessions,
    landedFiles: verified.landedFiles,
    records: verified.records,
    chains: conversations.size,
    rounds,
    ...(site ? { siteFiles: site.files } : {}),
    problems,
    notes: [...verified.notes.map((entry) => ({ path: `${BUNDLE}/${entry.path}`, what: entry.what })), ...(site?.notes ?? [])],
  };
}

/** The problem with an entry the manifest does not list being at `relative`, from what the manifest lists: a file inside a listed file, or at the path of a listed file's folder. */
function clashWithListed(relative: string, type: TarEntry['type'], vouched: Vouched): string | undefined {
  for (let slash = relative.indexOf('/'); slash >= 0; slash = relative.indexOf('/', slash + 1)) {
    if (vouched.listing.listed.has(relative.slice(0, slash))) return `a path inside ${relative.slice(0, slash)}, which is a file: it is both a file and a folder`;
  }
  if (type === 'directory' && vouched.listing.listed.has(relative)) return 'a folder entry at the path of a file: it is both a file and a folder';
  if (type !== 'directory' && vouched.folders.has(relative)) return 'a file entry at the path of a folder: it is both a file and a folder';
  return undefined;
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
