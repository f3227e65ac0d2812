// What verify calls intact is what GNU tar extracts. Each archive below is
// a real export's entries with something a tar reader may read in more than
// one way; for each, either verify rejects it, or `tar --zstd -xf` writes
// exactly the files verify hashed (the manifest's, with the bytes it lists,
// and the root digest and manifests themselves), and nothing else.

import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compress } from 'zstd-napi';
import { CONVERTERS } from '../../src/adapters/dialects.ts';
import { META_FILES, type Manifest } from '../../src/bundle/manifest.ts';
import { verifyArchive } from '../../src/verify/archive.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { exportedFixtures, temporaryFolder } from '../helpers.ts';
import { BLOCK, END, entriesOf, entry, header, pax, paxRecords, ustarName } from './tar-blocks.ts';

const deep = { deep: true, converters: CONVERTERS };
const sha256 = (bytes: Buffer): string => crypto.createHash('sha256').update(bytes).digest('hex');

let out: string;
let entries: { name: string; bytes: Buffer }[];
beforeAll(async () => {
  ({ out } = await exportedFixtures([FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.compaction]));
  entries = entriesOf(out, 'export');
});

/** The genuine entries, with `change` made to the list, then the end-of-archive marker, and `after` after it. */
function tarOf(change: (list: Buffer[], names: string[]) => void = () => {}, after: Buffer = Buffer.alloc(0)): Buffer {
  const list = entries.map((found) => found.bytes);
  change(
    list,
    entries.map((found) => found.name),
  );
  return Buffer.concat([...list, END, after]);
}

/** The data of one genuine file entry by its name, and its place in the list. */
function fileEntry(name: string): { index: number; data: Buffer } {
  const index = entries.findIndex((found) => found.name === name);
  expect(index).toBeGreaterThan(0);
  return { index, data: fs.readFileSync(path.join(out, name.slice('export/'.length))) };
}

const lastFile = (): string => entries.filter((found) => !found.name.endsWith('/')).at(-1)!.name;

async function written(tarBytes: Buffer): Promise<string> {
  const file = path.join(temporaryFolder(), 'crafted.tar.zst');
  fs.writeFileSync(file, await compress(tarBytes, { checksumFlag: true }));
  return file;
}

/** Every file under `folder`, by path from it, with its SHA-256. */
function filesUnder(folder: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const child of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!child.isDirectory()) found.set(path.relative(folder, path.join(child.parentPath, child.name)).split(path.sep).join('/'), child.isFile() ? sha256(fs.readFileSync(path.join(child.parentPath, child.name))) : 'not a file');
  }
  return found;
}

/**
 * The differential: verify's verdict, and when it says intact, GNU tar's
 * extraction compared with what verify hashed. Returns whether verify
 * accepted the archive.
 */
async function verifyOrSameAsGnuTar(tarBytes: Buffer): Promise<boolean> {
  const file = await written(tarBytes);
  const report = await verifyArchive(file, deep);
  if (report.problems.length > 0) return false;
  const target = temporaryFolder();
  const extracted = spawnSync('tar', ['--zstd', '-xf', file, '-C', target], { encoding: 'utf8' });
  expect([extracted.status, extracted.stderr]).toEqual([0, '']);
  const files = filesUnder(path.join(target, 'export'));
  const manifestBytes = fs.readFileSync(path.join(target, 'export', 'manifest.json'));
  expect(sha256(manifestBytes)).toBe(report.rootDigest);
  const manifest = JSON.parse(manifestBytes.toString('utf8')) as Manifest;
  const expected = new Map(manifest.files.map((listed) => [listed.path, listed.sha256]));
  for (const meta of META_FILES) expected.set(meta, files.get(meta)!);
  expect(filesUnder(target).size).toBe(files.size);
  expect(files).toEqual(expected);
  return true;
}

/** Each hostile archive, by what it does. */
function hostileArchives(): [string, () => Buffer][] {
  const manifest = fileEntry('export/manifest.json');
  const rootDigest = fileEntry('export/root-digest.txt');
  const last = fileEntry(lastFile());
  return [
    ['a global pax header changing the path of every entry after it', () => tarOf((list) => list.splice(last.index, 0, pax([['path', 'export/elsewhere']], 'g')))],
    ['a global pax header changing the size of every entry after it', () => tarOf((list) => list.splice(last.index, 0, pax([['size', '0']], 'g')))],
    ['a global pax header with only times', () => tarOf((list) => list.splice(1, 0, pax([['mtime', '1700000000']], 'g')))],
    ['an entry after the end-of-archive marker', () => tarOf((list) => list.splice(rootDigest.index, 1), Buffer.concat([entries[rootDigest.index]!.bytes, END]))],
    ['an entry after a lone zero block', () => tarOf((list) => list.splice(rootDigest.index, 1, Buffer.alloc(BLOCK), entries[rootDigest.index]!.bytes))],
    ['bytes that are not a header after the end-of-archive marker', () => tarOf(() => {}, Buffer.concat([Buffer.from('trailing garbage'), Buffer.alloc(BLOCK - 16)]))],
    ['a folder entry over a file', () => tarOf((list) => list.push(entry({ name: 'export/root-digest.txt/', typeflag: '5' })))],
    ['a file inside a file', () => tarOf((list) => list.push(entry({ name: 'export/root-digest.txt/inside' }, Buffer.from('x'))))],
    ['a file entry at a folder', () => tarOf((list) => list.push(entry({ name: 'export/bundle' }, Buffer.from('x'))))],
    ['a file entry named with a trailing slash', () => tarOf((list) => list.push(entry({ name: 'export/made-a-folder/' })))],
    ['a folder entry that carries data', () => tarOf((list) => list.push(entry({ name: 'export/more/', typeflag: '5' }, header({ name: 'export/hidden', size: 0 }))))],
    ['a pax keyword verify does not apply', () => tarOf((list) => list.splice(last.index, 0, pax([['GNU.sparse.major', '1'], ['GNU.sparse.minor', '0']])))],
    ['a pax header with no entry after it', () => tarOf((list) => list.push(pax([['path', 'export/nothing']])))],
    ['two pax headers for one entry', () => tarOf((list) => list.splice(last.index, 0, pax([['mtime', '1']]), pax([['mtime', '2']])))],
    ['a pax size larger than the ustar size', () => tarOf((list) => list.splice(last.index, 1, pax([['size', String(last.data.length + BLOCK)]]), header({ ...ustarName(lastFile()), size: last.data.length }), last.data, Buffer.alloc(BLOCK - (last.data.length % BLOCK)), Buffer.alloc(BLOCK)))],
    ['a header with a wrong checksum', () => tarOf((list) => list.splice(last.index, 1, Buffer.concat([header({ ...ustarName(lastFile()), size: last.data.length, checksumOffBy: 1 }), last.data, Buffer.alloc((BLOCK - (last.data.length % BLOCK)) % BLOCK)])))],
    ['a name that is not UTF-8', () => tarOf((list) => list.push(entry({ name: Buffer.from([0x65, 0x78, 0x70, 0x6f, 0x72, 0x74, 0x2f, 0xff]) }, Buffer.from('x'))))],
    ['a sparse entry', () => tarOf((list) => list.push(entry({ name: 'export/sparse', typeflag: 'S', magic: 'gnu' }, Buffer.from('x'))))],
    ['a version 7 header', () => tarOf((list) => list.push(entry({ name: 'export/old', magic: 'v7' }, Buffer.from('x'))))],
    ['a contiguous file, which GNU tar extracts as a file', () => tarOf((list) => list.push(entry({ name: 'export/contiguous', typeflag: '7' }, Buffer.from('x'))))],
    ['a hard link to the manifest', () => tarOf((list) => list.push(entry({ name: 'export/linked', typeflag: '1', linkname: 'export/manifest.json' })))],
    ['a GNU long name over a decoy name', () => tarOf((list) => list.splice(manifest.index, 1, entry({ name: '././@LongLink', typeflag: 'L', magic: 'gnu' }, Buffer.from('export/manifest.json\0')), entry({ name: 'export/decoy', magic: 'gnu' }, manifest.data)))],
    ['a pax path over a decoy name', () => tarOf((list) => list.splice(manifest.index, 1, pax([['path', 'export/manifest.json']]), entry({ name: 'export/decoy' }, manifest.data)))],
    ['a ustar prefix', () => tarOf((list) => list.splice(manifest.index, 1, entry({ prefix: 'export', name: 'manifest.json' }, manifest.data)))],
    ['a GNU header whose prefix field GNU tar does not read', () => tarOf((list) => list.splice(manifest.index, 1, entry({ prefix: 'export/elsewhere', name: 'export/manifest.json', magic: 'gnu' }, manifest.data)))],
    ['a size in base 256', () => tarOf((list) => list.splice(manifest.index, 1, Buffer.concat([header({ name: 'export/manifest.json', sizeField: Buffer.concat([Buffer.from([0x80]), Buffer.alloc(7), Buffer.from(manifest.data.length.toString(16).padStart(8, '0'), 'hex')]) }), manifest.data, Buffer.alloc((BLOCK - (manifest.data.length % BLOCK)) % BLOCK)])))],
  ];
}

describe('an archive is read as GNU tar extracts it, or rejected', () => {
  it('for every hostile archive, verify rejects it or GNU tar extracts exactly what verify hashed', async () => {
    // The profile accepted: the genuine entries laid out by hand, and an export folder packed by GNU tar in --format=posix.
    expect(await verifyOrSameAsGnuTar(tarOf())).toBe(true);
    const packed = path.join(temporaryFolder(), 'posix.tar.zst');
    expect(spawnSync('tar', ['--zstd', '--format=posix', '-cf', packed, '-C', path.dirname(out), 'export']).status).toBe(0);
    expect((await verifyArchive(packed, deep)).problems).toEqual([]);
    const accepted: string[] = [];
    for (const [what, made] of hostileArchives()) {
      if (await verifyOrSameAsGnuTar(made())) accepted.push(what);
    }
    // The ones read the same way GNU tar reads them, which verify then accepts.
    expect(accepted).toEqual(['a GNU long name over a decoy name', 'a pax path over a decoy name', 'a ustar prefix', 'a GNU header whose prefix field GNU tar does not read', 'a size in base 256']);
  }, 60_000);

  it('names what it rejects, and stops reading at what GNU tar would read otherwise', async () => {
    const problems = async (tarBytes: Buffer) => (await verifyArchive(await written(tarBytes))).problems;
    const last = fileEntry(lastFile());
    expect(await problems(tarOf((list) => list.splice(last.index, 0, pax([['path', 'export/elsewhere']], 'g'))))).toEqual([
      { path: 'PaxHeader', what: 'a global pax header (typeflag g), which GNU tar applies to every entry after it; an export has none' },
    ]);
    expect(await problems(tarOf(() => {}, Buffer.from('trailing')))).toEqual([{ path: expect.stringMatching(/crafted\.tar\.zst$/), what: expect.stringMatching(/^data after the end-of-archive marker, at byte \d+, which GNU tar does not extract$/) }]);
    expect(await problems(tarOf((list) => list.push(entry({ name: 'export/root-digest.txt/', typeflag: '5' }))))).toEqual([{ path: 'export/root-digest.txt/', what: 'a folder entry at the path of a file: it is both a file and a folder' }]);
    expect(await problems(tarOf((list) => list.splice(last.index, 0, pax([['hdrcharset', 'BINARY']]))))).toEqual([{ path: 'PaxHeader', what: 'a pax header with the keyword "hdrcharset", which verify does not apply; an export has none' }]);
    expect(paxRecords([['path', 'x']]).toString()).toBe('9 path=x\n');
  }, 60_000);
});
