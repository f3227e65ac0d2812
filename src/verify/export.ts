// Verifies an export folder from its files alone: the root digest against
// the manifest, every listed file's size and SHA-256, files missing and files
// extra (anywhere, the top included), the plain manifest against the JSON
// one, and then the bundle inside as a storage zone: landed files, `.sd`,
// every round chain and branch record. With `deep`, every `.sd` is derived
// again, every conversation assembled again and compared with its fold, and
// the site rendered again from the bundle and compared with the export's
// (site.ts). Every problem is collected, with its path, what was expected
// and what was found.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLE } from '../bundle/manifest.ts';
import { exportFiles, MANIFEST, MANIFEST_SCHEMA, META_FILES, PLAIN_MANIFEST, ROOT_DIGEST, unsafePath, type Manifest } from '../bundle/manifest.ts';
import { BufferPool } from '../files/buffer-pool.ts';
import { digestOfFile } from '../files/digest.ts';
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

/**
 * The checks an export folder and an archive share: the root digest against
 * the manifest's bytes, every listed file present with its size and SHA-256,
 * nothing present that is not listed, and the plain manifest saying the same
 * as the JSON one. `present` is every file found, with its size and digest.
 */
/** A manifest's bytes and what they say: the manifest, or why it cannot be read. */
export interface ManifestRead {
  readonly bytes: Buffer;
  readonly manifest?: Manifest;
  readonly unreadable?: string;
}

export function readManifest(bytes: Buffer): ManifestRead {
  try {
    const manifest = JSON.parse(bytes.toString('utf8')) as Manifest;
    if (manifest.schema !== MANIFEST_SCHEMA || manifest.algorithm !== 'sha256' || !Array.isArray(manifest.files)) throw new Error(`not a ${MANIFEST_SCHEMA} manifest with algorithm sha256`);
    return { bytes, manifest };
  } catch (error) {
    return { bytes, unreadable: (error as Error).message };
  }
}

export function checkManifest(present: ReadonlyMap<string, PresentFile>, meta: { manifest?: ManifestRead; rootDigest?: string; plain?: string }): { problems: Problem[]; manifest?: Manifest; bytes: number } {
  const problems: Problem[] = [];
  const problem = (where: string, what: string): void => void problems.push({ path: where, what });
  const rootDigest = meta.rootDigest?.trim();
  if (rootDigest === undefined) problem(ROOT_DIGEST, 'the root digest is missing');
  let manifest: Manifest | undefined;
  if (meta.manifest === undefined) {
    problem(MANIFEST, 'the manifest is missing');
  } else {
    const found = crypto.createHash('sha256').update(meta.manifest.bytes).digest('hex');
    if (rootDigest !== undefined && !/^[0-9a-f]{64}$/.test(rootDigest)) problem(ROOT_DIGEST, `the root digest is not a lowercase SHA-256 (found ${JSON.stringify(rootDigest)})`);
    else if (rootDigest !== undefined && found !== rootDigest) problem(MANIFEST, `the manifest does not match the root digest (expected ${rootDigest}, found ${found})`);
    manifest = meta.manifest.manifest;
    if (meta.manifest.unreadable !== undefined) problem(MANIFEST, `the manifest cannot be read: ${meta.manifest.unreadable}`);
  }
  let bytes = 0;
  if (manifest) {
    const listed = new Map<string, Manifest['files'][number]>();
    for (const entry of manifest.files) {
      const unsafe = unsafePath(entry.path);
      if (unsafe) {
        problem(entry.path, `listed in the manifest, but ${unsafe}`);
        continue;
      }
      if (listed.has(entry.path)) problem(entry.path, 'listed twice in the manifest');
      listed.set(entry.path, entry);
    }
    for (const [relative, entry] of listed) {
      const found = present.get(relative);
      if (!found) {
        problem(relative, `missing: the manifest lists it (${entry.size} bytes, sha256 ${entry.sha256})`);
        continue;
      }
      bytes += found.size;
      if (found.size !== entry.size) problem(relative, `its size is ${found.size} bytes, expected ${entry.size}`);
      if (found.sha256 !== entry.sha256) problem(relative, `its SHA-256 is ${found.sha256}, expected ${entry.sha256}`);
    }
    for (const relative of present.keys()) if (!META_FILES.has(relative) && !listed.has(relative)) problem(relative, 'extra: the manifest does not list it');
    const expected = manifest.files.map((entry) => `${entry.sha256}  ${entry.path}\n`).join('');
    if (meta.plain === undefined) problem(PLAIN_MANIFEST, 'the plain manifest is missing');
    else if (meta.plain !== expected) problem(PLAIN_MANIFEST, 'the plain manifest does not list the same files and digests as manifest.json');
  }
  return { problems, manifest, bytes };
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

/** Every file of the export but the manifest, its plain twin and the root digest, with its size and SHA-256; and what is there that is no regular file. */
function filesFound(root: string): { present: ReadonlyMap<string, PresentFile>; strange: { path: string; what: string }[] } {
  const { files, strange } = exportFiles(root);
  const present = new Map<string, PresentFile>();
  const buffers = new BufferPool();
  for (const relative of files) if (!META_FILES.has(relative)) present.set(relative, { size: fs.statSync(path.join(root, relative)).size, sha256: digestOfFile(path.join(root, relative), buffers) });
  return { present, strange };
}

function checkExport(root: string, options: VerifyOptions, { present, strange }: ReturnType<typeof filesFound>): ExportReport {
  const problems: Problem[] = [];
  const problem = (where: string, what: string): void => void problems.push({ path: where, what });
  for (const entry of strange) problem(entry.path, `${entry.what}; an export holds regular files only`);
  const read = (name: string): Buffer | undefined => (fs.existsSync(path.join(root, name)) ? fs.readFileSync(path.join(root, name)) : undefined);
  const manifestBytes = read(MANIFEST);
  const checked = checkManifest(present, { manifest: manifestBytes !== undefined ? readManifest(manifestBytes) : undefined, rootDigest: read(ROOT_DIGEST)?.toString('utf8'), plain: read(PLAIN_MANIFEST)?.toString('utf8') });
  problems.push(...checked.problems);
  const rootDigest = read(ROOT_DIGEST)?.toString('utf8').trim();
  const manifest = checked.manifest;
  const bytes = checked.bytes;
  // The bundle itself: evidence, derived files, chains, branch records.
  const bundle = path.join(root, BUNDLE);
  const notes: Problem[] = [];
  const counts = { sessions: 0, landedFiles: 0, records: 0, chains: 0, rounds: 0 };
  if (fs.existsSync(bundle)) {
    const inside = (entries: Problem[]) => entries.map((entry) => ({ path: `${BUNDLE}/${entry.path}`, what: entry.what }));
    const storage = verifyStorage(bundle, options);
    problems.push(...inside(storage.problems));
    notes.push(...inside(storage.notes));
    const chains = verifyChains(bundle, storage.landed);
    problems.push(...inside(chains.problems));
    Object.assign(counts, { sessions: storage.sessions, landedFiles: storage.landedFiles, records: storage.records, chains: chains.chains, rounds: chains.rounds });
    if (options.deep) problems.push(...inside(verifyAssemblies(bundle, storage.indexes)));
  } else {
    problem(BUNDLE, 'the bundle folder is missing');
  }
  return { files: manifest?.files.length ?? 0, bytes, rootDigest, ...counts, problems, notes };
}

