// Verifies an export folder from its files alone: the root digest against
// the manifest, every listed file's size and SHA-256, files missing and files
// extra (anywhere, the top included), the plain manifest against the JSON
// one, and then the bundle inside as a storage zone: landed files, `.sd`,
// every round chain and branch record. With `deep`, every `.sd` is derived
// again, every conversation assembled again and compared with its fold, and
// the site rendered again from the bundle and compared with the export's
// (site.ts). Every problem is collected, with its path, what was expected and
// what was found; files the manifest does not list are counted, and the
// first few named, so that millions of them cost no list (bounds.ts).

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLE } from '../bundle/manifest.ts';
import { MANIFEST, MANIFEST_SCHEMA, META_FILES, PLAIN_MANIFEST, ROOT_DIGEST, unsafePath, type Manifest, type ManifestEntry } from '../bundle/manifest.ts';
import { BufferPool } from '../files/buffer-pool.ts';
import { digestOfFile } from '../files/digest.ts';
import { ExtraFiles, MANIFEST_BYTES, pastBound, PROBLEMS_NAMED, ProblemsUpTo, ROOT_DIGEST_BYTES } from './bounds.ts';
import { verifyAssemblies, verifyChains } from './chains.ts';
import { checkSite, inScratchFolder } from './site.ts';
import { verifyStorage, type Problem, type VerifyOptions } from './storage.ts';

export interface ExportReport {
  readonly files: number;
  readonly bytes: number;
  readonly rootDigest?: string;
  /** What the bundle holds, as verified: sessions, landed files, records, round chains and rounds. */
  readonly sessions: number;
  readonly landedFiles: number;
  readonly records: number;
  readonly chains: number;
  readonly rounds: number;
  /** With `deep`: the site's files rendered again from the bundle and compared with the export's (site.ts). */
  readonly siteFiles?: number;
  readonly problems: Problem[];
  readonly notes: Problem[];
}

export function isExportFolder(root: string): boolean {
  return fs.existsSync(path.join(root, MANIFEST)) || fs.existsSync(path.join(root, ROOT_DIGEST)) || fs.existsSync(path.join(root, BUNDLE));
}

export interface PresentFile {
  readonly size: number;
  readonly sha256: string;
}

/** A manifest's digest and what it says: the manifest, or why it cannot be read. */
export interface ManifestRead {
  /** SHA-256 of its bytes; none when they were not read. */
  readonly sha256?: string;
  readonly manifest?: Manifest;
  readonly unreadable?: string;
}

/** A manifest's bytes, read: its digest, and the manifest when its bytes are one. */
export function readManifest(bytes: Buffer): ManifestRead {
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  try {
    const manifest = JSON.parse(bytes.toString('utf8')) as Manifest;
    if (manifest?.schema !== MANIFEST_SCHEMA || manifest.algorithm !== 'sha256' || !Array.isArray(manifest.files)) throw new Error(`not a ${MANIFEST_SCHEMA} manifest with algorithm sha256`);
    const wrong = manifest.files.findIndex((entry) => typeof entry?.path !== 'string' || !Number.isSafeInteger(entry.size) || typeof entry.sha256 !== 'string');
    if (wrong >= 0) throw new Error(`file ${wrong + 1} of its list is not a path, a size and a SHA-256`);
    return { sha256, manifest };
  } catch (error) {
    return { sha256, unreadable: (error as Error).message };
  }
}

/** A manifest of `size` bytes that is past its bound, and so is not read. */
export function unreadManifest(size: number): ManifestRead {
  return { unreadable: `${pastBound(size, MANIFEST_BYTES, 'a manifest')}; it was not read` };
}

/** A file beside the manifest (the root digest, the plain manifest): its size, and its bytes when they are read. */
export interface MetaFile {
  readonly size: number;
  read(): Buffer;
}

/**
 * Whether the plain manifest lists the same files and digests as the
 * manifest, line by line: its size first, since one of another size says
 * something else and need not be read, then each line in place, so that no
 * second copy of it is made.
 */
function samePlainManifest(plain: MetaFile, manifest: Manifest): boolean {
  const line = (entry: ManifestEntry): string => `${entry.sha256}  ${entry.path}\n`;
  let size = 0;
  for (const entry of manifest.files) size += Buffer.byteLength(line(entry));
  if (plain.size !== size) return false;
  const bytes = plain.read();
  let offset = 0;
  for (const entry of manifest.files) {
    const expected = Buffer.from(line(entry));
    if (!expected.equals(bytes.subarray(offset, offset + expected.length))) return false;
    offset += expected.length;
  }
  return true;
}

/** What the manifest lists: each file by its path, and what is wrong with its list (an unsafe path, a path twice). */
export interface Listing {
  readonly listed: Map<string, ManifestEntry>;
  readonly problems: Problem[];
}

export function listingOf(manifest: Manifest): Listing {
  const listed = new Map<string, ManifestEntry>();
  const problems: Problem[] = [];
  for (const entry of manifest.files) {
    const unsafe = unsafePath(entry.path);
    if (unsafe) {
      problems.push({ path: entry.path, what: `listed in the manifest, but ${unsafe}` });
      continue;
    }
    if (listed.has(entry.path)) problems.push({ path: entry.path, what: 'listed twice in the manifest' });
    listed.set(entry.path, entry);
  }
  return { listed, problems };
}

/**
 * The checks an export folder and an archive share: the root digest against
 * the manifest's bytes, every listed file present with its size and SHA-256,
 * nothing present that is not listed, and the plain manifest saying the same
 * as the JSON one. `found` is every listed file found, with its size and
 * digest; `extras` the files found that the manifest does not list.
 */
export function checkManifest(found: ReadonlyMap<string, PresentFile>, extras: ExtraFiles, meta: { manifest?: ManifestRead; listing?: Listing; rootDigest?: MetaFile; plain?: MetaFile }): { problems: Problem[]; manifest?: Manifest; bytes: number; rootDigest?: string } {
  const problems: Problem[] = [];
  const problem = (where: string, what: string): void => void problems.push({ path: where, what });
  let rootDigest: string | undefined;
  if (meta.rootDigest === undefined) problem(ROOT_DIGEST, 'the root digest is missing');
  else if (meta.rootDigest.size > ROOT_DIGEST_BYTES) problem(ROOT_DIGEST, `the root digest is not a lowercase SHA-256: ${pastBound(meta.rootDigest.size, ROOT_DIGEST_BYTES, 'a root digest')}; it was not read`);
  else rootDigest = meta.rootDigest.read().toString('utf8').trim();
  let manifest: Manifest | undefined;
  if (meta.manifest === undefined) {
    problem(MANIFEST, 'the manifest is missing');
  } else {
    const found = meta.manifest.sha256;
    if (rootDigest !== undefined && !/^[0-9a-f]{64}$/.test(rootDigest)) problem(ROOT_DIGEST, `the root digest is not a lowercase SHA-256 (found ${JSON.stringify(rootDigest)})`);
    else if (rootDigest !== undefined && found !== undefined && found !== rootDigest) problem(MANIFEST, `the manifest does not match the root digest (expected ${rootDigest}, found ${found})`);
    manifest = meta.manifest.manifest;
    if (meta.manifest.unreadable !== undefined) problem(MANIFEST, `the manifest cannot be read: ${meta.manifest.unreadable}`);
  }
  let bytes = 0;
  if (manifest) {
    const { listed, problems: listing } = meta.listing ?? listingOf(manifest);
    problems.push(...listing);
    for (const [relative, entry] of listed) {
      const present = found.get(relative);
      if (!present) {
        problem(relative, `missing: the manifest lists it (${entry.size} bytes, sha256 ${entry.sha256})`);
        continue;
      }
      bytes += present.size;
      if (present.size !== entry.size) problem(relative, `its size is ${present.size} bytes, expected ${entry.size}`);
      if (present.sha256 !== entry.sha256) problem(relative, `its SHA-256 is ${present.sha256}, expected ${entry.sha256}`);
    }
    for (const extra of extras.problems()) problems.push(extra);
    if (meta.plain === undefined) problem(PLAIN_MANIFEST, 'the plain manifest is missing');
    else {
      if (!samePlainManifest(meta.plain, manifest)) problem(PLAIN_MANIFEST, 'the plain manifest does not list the same files and digests as manifest.json');
    }
  }
  return { problems, manifest, bytes, rootDigest };
}

/**
 * Every regular file under `root`, relative to it, told to `file` as its
 * folder is read, and every entry of another kind to `strange`: nothing is
 * kept but the folders still to be read, so that millions of files cost no
 * list of them.
 */
function walkFiles(root: string, file: (relative: string) => void, strange: (relative: string, what: string) => void): void {
  const folders = [''];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    const listing = fs.opendirSync(path.join(root, folder));
    try {
      for (let entry = listing.readSync(); entry !== null; entry = listing.readSync()) {
        const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
        if (entry.isDirectory()) folders.push(relative);
        else if (entry.isFile()) file(relative);
        else strange(relative, entry.isSymbolicLink() ? 'a symbolic link' : 'not a regular file');
      }
    } finally {
      listing.closeSync();
    }
  }
}

/** A file beside the manifest as a MetaFile, or undefined when there is no such file. */
function metaFile(root: string, name: string): MetaFile | undefined {
  const file = path.join(root, name);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return stat.isFile() ? { size: stat.size, read: () => fs.readFileSync(file) } : undefined;
}

/**
 * Verifies an export folder: every check of verifyExportFiles, and with
 * `deep` its site rendered again from its bundle, in a private temporary
 * folder, and compared with the export's. The site is rendered first, while
 * this process holds little: the renderer's children are most of the memory
 * of a deep verify, and the deep checks of the bundle after them add theirs
 * to nothing.
 */
export async function verifyExport(root: string, options: VerifyOptions = {}): Promise<ExportReport> {
  const found = filesFound(root);
  const site = options.deep && fs.existsSync(path.join(root, BUNDLE)) ? await inScratchFolder((scratch) => checkSite(path.join(root, BUNDLE), found.present, scratch)) : undefined;
  const report = checkExport(root, options, found);
  return site ? { ...report, siteFiles: site.files, problems: [...report.problems, ...site.problems], notes: [...report.notes, ...site.notes] } : report;
}

/**
 * Every check verifyExport makes but rendering the site again: the root
 * digest, the manifest and every file it lists, and the bundle (with `deep`,
 * every `.sd` derived and every conversation assembled again). What a check
 * that renders nothing needs, such as whether a folder is an earlier export.
 */
export function verifyExportFiles(root: string, options: VerifyOptions = {}): ExportReport {
  return checkExport(root, options, filesFound(root));
}

interface FilesFound {
  readonly manifestRead: ManifestRead | undefined;
  readonly listing: Listing | undefined;
  /** The files the manifest lists that are there, with their size and SHA-256. */
  readonly present: ReadonlyMap<string, PresentFile>;
  readonly extras: ExtraFiles;
  readonly strange: ProblemsUpTo;
}

/**
 * The manifest, and every file of the export it lists (but itself, its plain
 * twin and the root digest) with its size and SHA-256: only those are
 * measured and hashed; the rest are counted, and what is no regular file
 * noted.
 */
function filesFound(root: string): FilesFound {
  const manifestFile = metaFile(root, MANIFEST);
  const manifestRead = manifestFile === undefined ? undefined : manifestFile.size > MANIFEST_BYTES ? unreadManifest(manifestFile.size) : readManifest(fs.readFileSync(path.join(root, MANIFEST)));
  const listing = manifestRead?.manifest && listingOf(manifestRead.manifest);
  const present = new Map<string, PresentFile>();
  const extras = new ExtraFiles();
  const strange = new ProblemsUpTo(PROBLEMS_NAMED, (more, all) => ({ path: '.', what: `${more} more entries that are not regular files, ${all} in all; the first ${all - more} are named` }));
  const buffers = new BufferPool();
  walkFiles(
    root,
    (relative) => {
      if (META_FILES.has(relative)) return;
      if (listing !== undefined && !listing.listed.has(relative)) extras.add(relative);
      else if (listing !== undefined) present.set(relative, { size: fs.statSync(path.join(root, relative)).size, sha256: digestOfFile(path.join(root, relative), buffers) });
    },
    (relative, what) => strange.add(relative, `${what}; an export holds regular files only`),
  );
  return { manifestRead, listing, present, extras, strange };
}

function checkExport(root: string, options: VerifyOptions, { manifestRead, listing, present, extras, strange }: FilesFound): ExportReport {
  const problems: Problem[] = [];
  for (const problem of strange.problems()) problems.push(problem);
  const checked = checkManifest(present, extras, { manifest: manifestRead, listing, rootDigest: metaFile(root, ROOT_DIGEST), plain: metaFile(root, PLAIN_MANIFEST) });
  for (const problem of checked.problems) problems.push(problem);
  const { rootDigest, manifest, bytes } = checked;
  // The bundle itself: evidence, derived files, chains, branch records.
  const bundle = path.join(root, BUNDLE);
  const notes: Problem[] = [];
  const counts = { sessions: 0, landedFiles: 0, records: 0, chains: 0, rounds: 0 };
  if (fs.existsSync(bundle)) {
    const inside = (into: Problem[], entries: readonly Problem[]): void => {
      for (const entry of entries) into.push({ path: `${BUNDLE}/${entry.path}`, what: entry.what });
    };
    const storage = verifyStorage(bundle, options);
    inside(problems, storage.problems);
    inside(notes, storage.notes);
    const chains = verifyChains(bundle, storage.landed);
    inside(problems, chains.problems);
    Object.assign(counts, { sessions: storage.sessions, landedFiles: storage.landedFiles, records: storage.records, chains: chains.chains, rounds: chains.rounds });
    if (options.deep) inside(problems, verifyAssemblies(bundle, storage.indexes));
  } else {
    problems.push({ path: BUNDLE, what: 'the bundle folder is missing' });
  }
  return { files: manifest?.files.length ?? 0, bytes, rootDigest, ...counts, problems, notes };
}

