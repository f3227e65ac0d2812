// The export's manifest: what proves the export's integrity to anyone, offline.
//
//   manifest.json         every file of the export but the three below: path, size, SHA-256
//   manifest-sha256.txt   the same files as `<hex>  <path>` lines, so `sha256sum -c` checks them with stock tools
//   root-digest.txt       SHA-256 of manifest.json, written last: one value that stands for the whole export
//
// Paths are relative, with forward slashes, normalised, and safe: no absolute
// path, no `..` or `.` segment, no empty segment, no backslash, no control
// character. Entries are sorted bytewise, never by locale, so the same files
// always give the same manifest.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BufferPool } from '../files/buffer-pool.ts';
import { digestOfFile } from '../files/digest.ts';
import { listFolder } from '../files/folders.ts';

export const MANIFEST_SCHEMA = 'manifest/1';
export const MANIFEST = 'manifest.json';
export const PLAIN_MANIFEST = 'manifest-sha256.txt';
export const ROOT_DIGEST = 'root-digest.txt';
export const META_FILES = new Set([MANIFEST, PLAIN_MANIFEST, ROOT_DIGEST]);

export interface ManifestEntry {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

export interface Manifest {
  readonly schema: typeof MANIFEST_SCHEMA;
  readonly algorithm: 'sha256';
  readonly files: ManifestEntry[];
}

/** Why a relative path is unsafe, or undefined when it is safe. */
export function unsafePath(relative: string): string | undefined {
  if (relative === '') return 'the path is empty';
  if (relative.startsWith('/')) return 'the path is absolute';
  if (relative.includes('\\')) return 'the path has a backslash';
  if (/[\u0000-\u001f\u007f]/.test(relative)) return 'the path has a control character';
  for (const segment of relative.split('/')) {
    if (segment === '') return 'the path has an empty segment';
    if (segment === '.' || segment === '..') return `the path has a "${segment}" segment`;
  }
  return undefined;
}

/** The export's folder of evidence and chains: the storage layout for the chosen conversations. */
export const BUNDLE = 'bundle';

/** The export's static site, rendered from the bundle alone. */
export const SITE = 'site';

/** The conversations of the bundle folder `bundle`, in a stable order: those with a chain under _conversations/. */
export function conversationsOfBundle(bundle: string): string[] {
  return listFolder(path.join(bundle, '_conversations')).sort();
}

/**
 * The conversation an export path belongs to by its place in the bundle:
 * bundle/<session>/… or bundle/_conversations/<id>/…; none for anything else.
 */
export function conversationOwning(file: string): string | undefined {
  const [top, first, second] = file.split('/');
  if (top !== BUNDLE || !first) return undefined;
  return (first === '_conversations' ? second : first) || undefined;
}

/**
 * The order of two names' UTF-8 bytes, without encoding them: UTF-8 orders
 * as code points do, and UTF-16 code units order the same way except that a
 * character beyond U+FFFF (a surrogate pair) comes after every other one.
 * A sort compares each name many times, and would encode it each time.
 */
export function compareBytes(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x === y) continue;
    const xPair = x >= 0xd800 && x <= 0xdfff;
    const yPair = y >= 0xd800 && y <= 0xdfff;
    return xPair === yPair ? x - y : xPair ? 1 : -1;
  }
  return a.length - b.length;
}


/**
 * Every regular file under a folder (or under its sub-folder `under`), relative
 * to the folder, sorted bytewise, but those under `leaveOut`; links and
 * other kinds are reported, never followed.
 */
export function exportFiles(root: string, under = '', leaveOut?: string): { files: string[]; strange: { path: string; what: string }[] } {
  const files: string[] = [];
  const strange: { path: string; what: string }[] = [];
  const walk = (relative: string): void => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (child === leaveOut) continue;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) files.push(child);
      else strange.push({ path: child, what: entry.isSymbolicLink() ? 'a symbolic link' : 'not a regular file' });
    }
  };
  walk(under);
  return { files: files.sort(compareBytes), strange };
}

/** exportFiles' files, for an export being written: anything but a regular file under it is an error naming the first such. */
export function regularExportFiles(root: string, under = '', leaveOut?: string): string[] {
  const { files, strange } = exportFiles(root, under, leaveOut);
  if (strange.length > 0) throw new Error(`${root}: ${strange[0]!.path} is ${strange[0]!.what}; an export holds regular files only`);
  return files;
}

/**
 * The SHA-256 of every file under `root/under`, by path relative to `root`:
 * taken from `known` where a digest is already known, else read and hashed.
 */
export function digestFiles(root: string, under: string, known: ReadonlyMap<string, string> = new Map(), hashed: (bytes: number) => void = () => {}): Map<string, string> {
  return digestListed(root, regularExportFiles(root, under), known, hashed);
}

/** The SHA-256 of each of `files`, paths relative to `root`: taken from `known` where a digest is already known, else read and hashed. */
export function digestListed(root: string, files: readonly string[], known: ReadonlyMap<string, string> = new Map(), hashed: (bytes: number) => void = () => {}): Map<string, string> {
  const digests = new Map<string, string>();
  const buffers = new BufferPool();
  for (const relative of files) {
    let sha256 = known.get(relative);
    if (sha256 === undefined) {
      sha256 = digestOfFile(path.join(root, relative), buffers);
      hashed(fs.statSync(path.join(root, relative)).size);
    }
    digests.set(relative, sha256);
  }
  return digests;
}

/** What an export's writer already knows of its files, which the manifest need not find out again. */
export interface KnownOfFiles {
  /** Sizes by path, from the stamps the files were placed or kept with. */
  readonly sizes?: ReadonlyMap<string, number>;
  /**
   * The files under one folder of the export, listed by a walk since which
   * nothing was written there (digestFiles): the folder is not walked again.
   */
  readonly listed?: { readonly under: string; readonly files: readonly string[] };
}

/**
 * Writes the manifest, the plain manifest and, last, the root digest. Returns
 * the root digest and the entries. `known` gives digests of files that need no
 * hashing again (see reuse.ts); every other file is read and hashed. A second
 * export of thousands of files, nearly all linked from the one before, spent
 * a noticeable part of its manifest step walking and measuring them again:
 * `knownOf` spares it what the export already knows.
 */
export function writeManifest(root: string, known: ReadonlyMap<string, string> = new Map(), hashed: (bytes: number) => void = () => {}, knownOf: KnownOfFiles = {}): { rootDigest: string; files: number; bytes: number; entries: ManifestEntry[] } {
  const { sizes, listed } = knownOf;
  const files = listed !== undefined ? [...regularExportFiles(root, '', listed.under), ...listed.files].sort(compareBytes) : regularExportFiles(root);
  const entries: ManifestEntry[] = [];
  let bytes = 0;
  const buffers = new BufferPool();
  for (const relative of files) {
    if (META_FILES.has(relative)) continue;
    const problem = unsafePath(relative);
    if (problem) throw new Error(`${root}: ${relative}: ${problem}`);
    const size = sizes?.get(relative) ?? fs.statSync(path.join(root, relative)).size;
    bytes += size;
    let sha256 = known.get(relative);
    if (sha256 === undefined) {
      sha256 = digestOfFile(path.join(root, relative), buffers);
      hashed(size);
    }
    entries.push({ path: relative, size, sha256 });
  }
  const manifest: Manifest = { schema: MANIFEST_SCHEMA, algorithm: 'sha256', files: entries };
  const manifestBytes = `${JSON.stringify(manifest, null, 1)}\n`;
  fs.writeFileSync(path.join(root, MANIFEST), manifestBytes);
  fs.writeFileSync(path.join(root, PLAIN_MANIFEST), entries.map((entry) => `${entry.sha256}  ${entry.path}\n`).join(''));
  const rootDigest = crypto.createHash('sha256').update(manifestBytes).digest('hex');
  fs.writeFileSync(path.join(root, ROOT_DIGEST), `${rootDigest}\n`);
  return { rootDigest, files: entries.length, bytes, entries };
}
