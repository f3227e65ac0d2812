// The archive's own tar header writer lays out every header as tar-stream's
// pack stream does, the encoder archives were first written with, so an
// export archived again is the same bytes; GNU tar reads every entry back.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { headerBytes, padding, ZERO_BLOCKS, type TarHeader } from '../../src/bundle/tar.ts';
import { filesUnder } from '../../scripts/files-under.ts';
import { temporaryFolder } from '../helpers.ts';

/** A tar of `entries` as tar-stream's public pack stream writes it. */
async function packedByTarStream(entries: readonly TarHeader[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const ended = new Promise<void>((resolve, reject) => {
    pack.on('data', (chunk) => void chunks.push(chunk as Buffer));
    pack.on('end', resolve);
    pack.on('error', reject);
  });
  for (const header of entries) {
    const done = (resolve: () => void, reject: (error: Error) => void) => (error?: Error | null) => (error ? reject(error) : resolve());
    await new Promise<void>((resolve, reject) =>
      header.type === 'directory' ? pack.entry({ ...header, type: 'directory' }, done(resolve, reject)) : pack.entry({ ...header, type: 'file' }, contentOf(header), done(resolve, reject)),
    );
  }
  pack.finalize();
  await ended;
  return Buffer.concat(chunks);
}

/** The same tar from the archive's own header writer. */
function packedHere(entries: readonly TarHeader[]): Buffer {
  return Buffer.concat([...entries.flatMap((header) => (header.type === 'file' ? [headerBytes(header), contentOf(header), padding(header.size)] : [headerBytes(header)])), ZERO_BLOCKS]);
}

function contentOf(header: TarHeader): Buffer {
  return Buffer.alloc(header.size, header.name.length % 251);
}

function entry(name: string, fields: Partial<TarHeader> = {}): TarHeader {
  const type = fields.type ?? 'file';
  return { name, type, mode: type === 'directory' ? 0o755 : 0o644, size: 0, mtime: new Date(1_700_000_000_000), uid: 0, gid: 0, uname: '', gname: '', ...fields };
}

/** Names of every kind the archive may hold: short, at and past each ustar limit, with and without folders, not ASCII. */
function names(): string[] {
  const folder = (length: number) => `${'f'.repeat(length - 1)}/`;
  const list = ['export/manifest.json', 'export', 'a', 'export/bundle/185ec7f2-62f0-481d-ac41-9661f74a6094/streams/main/transcript-20261204T173039.259Z-000001.jsonl'];
  for (const length of [99, 100, 101, 154, 155, 156, 200, 255, 256, 257, 300]) {
    list.push('n'.repeat(length));
    list.push(`export/${'n'.repeat(Math.max(1, length - 7))}`);
    list.push(`${folder(60)}${folder(60)}${'n'.repeat(Math.max(1, length - 120))}`);
    list.push(`${folder(length)}name`);
  }
  // pax record lengths around each change in the number of their digits
  for (let length = 80; length <= 1010; length += length < 110 || (length > 985 && length < 1000) ? 1 : 97) list.push(`export/${'p'.repeat(length)}`);
  list.push('export/naïve.txt', 'export/日本語/ファイル.md', 'export/emoji-🙂.json', `export/${'é'.repeat(60)}`);
  return list;
}

describe('the tar header writer', () => {
  it('writes the bytes tar-stream writes, for files and folders of every name length, size, time and mode', async () => {
    const entries: TarHeader[] = [];
    for (const name of names()) {
      entries.push(entry(name));
      entries.push(entry(name, { type: 'directory' }));
    }
    for (const size of [0, 1, 511, 512, 513, 1024, 65_537, 8 << 20]) entries.push(entry(`export/sized-${size}`, { size }));
    for (const mtime of [0, 1, 999, 1_700_000_000_123, 2_147_483_647_000]) entries.push(entry(`export/dated-${mtime}`, { mtime: new Date(mtime) }));
    for (const mode of [0o644, 0o755, 0o444, 0o100644, 0o40755]) entries.push(entry(`export/mode-${mode.toString(8)}`, { mode }));
    entries.push(entry('export/owned', { uid: 1000, gid: 1000, uname: 'someone', gname: 'staff' }));
    const expected = await packedByTarStream(entries);
    const written = packedHere(entries);
    expect(written.length).toBe(expected.length);
    expect(written.equals(expected)).toBe(true);
  });

  it('writes a size of 8 GiB and more in base-256, as GNU tar reads it', () => {
    for (const size of [8 * 1024 ** 3, 8 * 1024 ** 3 + 12_345, 2 ** 40 + 7]) {
      const block = headerBytes(entry('export/huge', { size }));
      expect(block[124]).toBe(0x80);
      let read = 0;
      for (let index = 125; index < 136; index++) read = read * 256 + block[index]!;
      expect(read).toBe(size);
    }
  });

  it('writes tars that GNU tar lists with every name, size and type', () => {
    const entries = names().map((name, index) => entry(index % 3 === 0 ? `export/d${index}/${name}` : `export/f${index}-${name}`, { type: index % 3 === 0 ? 'directory' : 'file', size: index % 3 === 0 ? 0 : index * 37 }));
    const file = path.join(temporaryFolder(), 'names.tar');
    fs.writeFileSync(file, packedHere(entries));
    const listing = spawnSync('tar', ['-tvf', file, '--utc'], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
    expect(listing.status, listing.stderr).toBe(0);
    const lines = listing.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(entries.length);
    entries.forEach((header, index) => {
      const line = lines[index]!;
      expect(line.startsWith(header.type === 'directory' ? 'drwxr-xr-x' : '-rw-r--r--')).toBe(true);
      expect(line.endsWith(` ${header.name}`), line).toBe(true);
      expect(line).toMatch(new RegExp(`^\\S+ 0/0 +${header.size} 2023-11-14 22:13 `));
    });
  });

  it('is written by the project: no module of src/ loads a package file by its path', () => {
    const source = fileURLToPath(new URL('../../src', import.meta.url));
    const modules = filesUnder(source).filter((file) => /\.(ts|mjs)$/.test(file));
    expect(modules).toContain(path.join(source, 'bundle', 'tar.ts'));
    const offenders = modules.filter((file) => /require\.resolve\(/.test(fs.readFileSync(file, 'utf8')));
    expect(offenders.map((file) => path.relative(source, file))).toEqual([]);
  });
});
