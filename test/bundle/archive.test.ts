import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import tar from 'tar-stream';
import { compress, decompress } from 'zstd-napi';
import { writeArchive } from '../../src/bundle/archive.ts';
import { frameIndexOf } from '../../src/bundle/archive-frames.ts';
import type { Manifest } from '../../src/bundle/manifest.ts';
import { digestOfFile } from '../../src/files/digest.ts';
import { verifyArchive } from '../../src/verify/archive.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { endedPid, exportedFixtures, temporaryFolder } from '../helpers.ts';

let out: string;
let archive: string;
beforeAll(async () => {
  ({ out, archive } = await exportedFixtures([FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.nestedAgents, FIXTURE_SESSIONS.hugeLine]));
});

/** An archive built by hand, for the hostile cases: entries as given, compressed with frame checksums. */
async function craft(entries: { name: string; type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device'; body?: string; linkname?: string }[]): Promise<string> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => void chunks.push(chunk as Buffer));
  const done = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  for (const entry of entries) {
    const header = { name: entry.name, type: entry.type ?? 'file', linkname: entry.linkname, mtime: new Date(0), mode: 0o644 } as const;
    if (entry.type === undefined || entry.type === 'file') pack.entry(header, Buffer.from(entry.body ?? '', 'latin1'));
    else pack.entry(header);
  }
  pack.finalize();
  await done;
  const file = path.join(temporaryFolder(), 'crafted.tar.zst');
  fs.writeFileSync(file, await compress(Buffer.concat(chunks), { checksumFlag: true }));
  return file;
}

/** The real export's entries, to carry one hostile entry among good ones. */
function realEntries(): { name: string; body: string }[] {
  const list: { name: string; body: string }[] = [];
  const walk = (relative: string): void => {
    for (const entry of fs.readdirSync(path.join(out, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else list.push({ name: `export/${child}`, body: fs.readFileSync(path.join(out, child), 'latin1') });
    }
  };
  walk('');
  return list;
}

/** Each entry's mtime in milliseconds, by name. */
async function mtimesOf(file: string): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    times.set(header.name, header.mtime!.getTime());
    stream.on('end', next);
    stream.resume();
  });
  const done = new Promise<void>((resolve, reject) => {
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  extract.end(await decompress(fs.readFileSync(file)));
  await done;
  return times;
}

describe('the archive', () => {
  it('verifies as a stream, and is the same bytes when made twice', async () => {
    expect((await verifyArchive(archive)).problems).toEqual([]);
    const again = path.join(temporaryFolder(), 'again.tar.zst');
    await writeArchive(out, again);
    expect(fs.readFileSync(again).equals(fs.readFileSync(archive))).toBe(true);
  });

  it('has sorted entries, owner 0 and fixed modes', () => {
    const listing = spawnSync('tar', ['--zstd', '-tvf', archive], { encoding: 'utf8' });
    expect(listing.status).toBe(0);
    const lines = listing.stdout.trim().split('\n');
    const names = lines.map((line) => line.split(/\s+/).at(-1)!);
    expect(names).toEqual([...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    expect(lines.every((line) => /^(-rw-r--r--|drwxr-xr-x) 0\/0 /.test(line))).toBe(true);
  });

  it('gives a landed file and its .sd their landing time, the rest of a conversation its first time, its folders its newest, and the rest the newest of all', async () => {
    const folder = path.join(temporaryFolder(), 'export-like');
    const files = [
      'bundle/one/streams/main/transcript-20260101T000000.000Z-000001.jsonl',
      'bundle/one/streams/main/transcript-20260101T000000.000Z-000001.sd',
      'bundle/one/streams/main/transcript-20260102T030405.678Z-000002.jsonl',
      'bundle/one/streams/main/transcript-20260102T030405.678Z-000002.sd',
      'bundle/_conversations/one/rounds/000001.sf',
      'bundle/two/streams/main/transcript-20260301T000000.000Z-000001.jsonl',
      'site/c/one.html',
      'site/c/one-2.html',
      'site/s/one--agent-a1.html',
      'site/c/two.html',
      'site/index.html',
      'manifest.json',
    ];
    for (const file of files) {
      fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
      fs.writeFileSync(path.join(folder, file), file);
    }
    const written = path.join(temporaryFolder(), 'times.tar.zst');
    await writeArchive(folder, written);
    const times = await mtimesOf(written);
    const firstOfOne = Date.parse('2026-01-01T00:00:00Z');
    const newestOfOne = Date.parse('2026-01-02T03:04:05Z');
    const newest = Date.parse('2026-03-01T00:00:00Z');
    const expected: [string, number][] = [
      ['bundle/one/streams/main/transcript-20260101T000000.000Z-000001.jsonl', firstOfOne],
      ['bundle/one/streams/main/transcript-20260101T000000.000Z-000001.sd', firstOfOne],
      ['bundle/one/streams/main/transcript-20260102T030405.678Z-000002.jsonl', newestOfOne],
      ['bundle/one/streams/main/transcript-20260102T030405.678Z-000002.sd', newestOfOne],
      ['bundle/_conversations/one/rounds/000001.sf', firstOfOne],
      ['site/c/one.html', firstOfOne],
      ['site/c/one-2.html', firstOfOne],
      ['site/s/one--agent-a1.html', firstOfOne],
      ['bundle/one/', newestOfOne],
      ['bundle/one/streams/main/', newestOfOne],
      ['bundle/_conversations/one/', newestOfOne],
      ['bundle/two/streams/main/transcript-20260301T000000.000Z-000001.jsonl', newest],
      ['site/c/two.html', newest],
      ['site/index.html', newest],
      ['manifest.json', newest],
      ['bundle/', newest],
      ['', newest],
    ];
    for (const [file, time] of expected) expect(new Date(times.get(`export/${file}`)!).toISOString(), file).toBe(new Date(time).toISOString());
    // SOURCE_DATE_EPOCH, or a time given, is every entry's.
    vi.stubEnv('SOURCE_DATE_EPOCH', '1700000000');
    try {
      await writeArchive(folder, written);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(new Set((await mtimesOf(written)).values())).toEqual(new Set([1_700_000_000_000]));
    await writeArchive(folder, written, { mtime: new Date(1_600_000_000_000) });
    expect(new Set((await mtimesOf(written)).values())).toEqual(new Set([1_600_000_000_000]));
  });

  it('round-trips with stock tools: zstd -t, GNU tar --zstd -x, then sha256sum -c', () => {
    expect(spawnSync('zstd', ['-q', '-t', archive]).status).toBe(0);
    const target = temporaryFolder();
    expect(spawnSync('tar', ['--zstd', '-xf', archive, '-C', target]).status).toBe(0);
    const check = spawnSync('sha256sum', ['-c', '--quiet', 'manifest-sha256.txt'], { cwd: path.join(target, 'export'), encoding: 'utf8' });
    expect([check.status, check.stdout]).toEqual([0, '']);
  });

  it('is the tar tar-stream packs, in zstd frames, for long names and files larger than its buffer, on one thread or several', async () => {
    // The archive lays the tar out itself; it must stay the bytes
    // tar-stream's pack made of the same files, which it replaced.
    const folder = path.join(temporaryFolder(), 'export-like');
    const deep = `${'a-folder-with-a-long-name/'.repeat(4)}file-with-a-long-name.txt`;
    const deeper = `${'x'.repeat(120)}/${'y'.repeat(120)}/${'z'.repeat(40)}.txt`;
    const files: [string, Buffer][] = [
      ['empty', Buffer.alloc(0)],
      ['one-block', Buffer.alloc(512, 'b')],
      [deep, Buffer.from('under a ustar prefix')],
      [deeper, Buffer.from('in a pax header')],
      // Larger than the buffer, and not a whole number of blocks.
      ['large/bytes', Buffer.from(Array.from({ length: (9 << 20) + 77 }, (_, index) => (index * 7919) % 251))],
    ];
    for (const [name, bytes] of files) {
      fs.mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
      fs.writeFileSync(path.join(folder, name), bytes);
    }
    const mtime = new Date(1_700_000_000_000);
    const written = path.join(temporaryFolder(), 'written.tar.zst');
    const result = await writeArchive(folder, written, { mtime });
    expect(result.frames).toBeGreaterThan(2);

    const pack = tar.pack();
    const chunks: Buffer[] = [];
    pack.on('data', (chunk: unknown) => void chunks.push(chunk as Buffer));
    const done = new Promise<void>((resolve) => pack.on('end', () => resolve()));
    const common = { mtime, uid: 0, gid: 0, uname: '', gname: '' };
    const folders = new Set(files.flatMap(([name]) => name.split('/').slice(0, -1).map((_, index, parts) => `${parts.slice(0, index + 1).join('/')}/`)));
    const entries = [...[...folders].map((name) => ({ name, bytes: undefined as Buffer | undefined })), ...files.map(([name, bytes]) => ({ name, bytes }))].sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
    pack.entry({ ...common, name: 'export/', type: 'directory', mode: 0o755 });
    for (const { name, bytes } of entries) {
      if (bytes === undefined) pack.entry({ ...common, name: `export/${name}`, type: 'directory', mode: 0o755 });
      else await new Promise<void>((resolve, reject) => pack.entry({ ...common, name: `export/${name}`, type: 'file', mode: 0o644, size: bytes.length }, bytes, (error) => (error ? reject(error) : resolve())));
    }
    pack.finalize();
    await done;
    expect((await decompress(fs.readFileSync(written))).equals(Buffer.concat(chunks))).toBe(true);
    // Compressed on worker threads, it is the same bytes.
    const onWorkers = path.join(temporaryFolder(), 'on-workers.tar.zst');
    await writeArchive(folder, onWorkers, { mtime, parallelFromBytes: 0 });
    expect(fs.readFileSync(onWorkers).equals(fs.readFileSync(written))).toBe(true);
    // And stock tools read it back.
    const target = temporaryFolder();
    expect(spawnSync('zstd', ['-q', '-t', written]).status).toBe(0);
    expect(spawnSync('tar', ['--zstd', '-xf', written, '-C', target]).status).toBe(0);
    for (const [name, bytes] of files) expect(fs.readFileSync(path.join(target, 'export', name)).equals(bytes), name).toBe(true);
  });

  it('accepts an export folder packed by GNU tar --zstd -c', async () => {
    const packed = path.join(temporaryFolder(), 'gnu.tar.zst');
    expect(spawnSync('tar', ['--zstd', '-cf', packed, '-C', path.dirname(out), 'export']).status).toBe(0);
    expect((await verifyArchive(packed)).problems).toEqual([]);
  });
});

/** An export folder's files and their SHA-256, as the export hands them to the archive. */
function digestsOf(folder: string): Map<string, string> {
  const digests = new Map<string, string>();
  for (const file of fs.readdirSync(folder, { recursive: true }).map(String)) {
    const full = path.join(folder, file);
    if (fs.statSync(full).isFile()) digests.set(file.split(path.sep).join('/'), digestOfFile(full));
  }
  return digests;
}

/** A copy of the fixtures' export, and a function that archives it with the reuse an export asks for, each time at the same path. */
function archivedCopy(): { folder: string; written: string; archiveAgain: (digests?: Map<string, string>) => ReturnType<typeof writeArchive> } {
  const folder = path.join(temporaryFolder(), 'export');
  fs.cpSync(out, folder, { recursive: true });
  const written = path.join(temporaryFolder(), 'export.tar.zst');
  const index = frameIndexOf(temporaryFolder(), written);
  return { folder, written, archiveAgain: (digests = digestsOf(folder)) => writeArchive(folder, written, { reuse: { index, digests } }) };
}

describe('an archive made again: frames of the one it replaces', () => {
  it('copies the frames that did not change and is the bytes an archive made afresh is', async () => {
    const { folder, written, archiveAgain } = archivedCopy();
    const first = await archiveAgain();
    expect(first.framesReused).toBe(0);

    // Nothing changed: every frame is copied.
    const same = await archiveAgain();
    expect(same.framesReused).toBe(same.frames);

    // One conversation's evidence changes: only the frames around it are compressed.
    const conversation = FIXTURE_SESSIONS.rewind;
    const rounds = path.join(folder, 'bundle', '_conversations', conversation, 'rounds');
    const round = path.join(rounds, fs.readdirSync(rounds)[0]!);
    fs.chmodSync(round, 0o644);
    fs.appendFileSync(round, '\n');
    const again = await archiveAgain();
    expect(again.framesReused).toBeGreaterThan(0);
    expect(again.framesReused).toBeLessThan(same.framesReused);
    const afresh = path.join(temporaryFolder(), 'afresh.tar.zst');
    await writeArchive(folder, afresh);
    expect(fs.readFileSync(written).equals(fs.readFileSync(afresh))).toBe(true);
    expect(spawnSync('zstd', ['-q', '-t', written]).status).toBe(0);
  });

  it('moves the archive it replaces aside and has it removed, and puts back one a crashed archiver left aside when no archive took its place', async () => {
    const { folder, written, archiveAgain } = archivedCopy();
    const first = await archiveAgain();
    const bytes = fs.readFileSync(written);
    const beside = (): string[] => fs.readdirSync(path.dirname(written)).sort();
    // Removed before the archive is returned, when the caller does not remove it.
    await archiveAgain();
    expect(beside()).toEqual([path.basename(written)]);
    // Handed to the caller, aside, with the bytes of the archive it was.
    const given: string[] = [];
    const index = frameIndexOf(temporaryFolder(), written);
    await writeArchive(folder, written, { reuse: { index, digests: digestsOf(folder) }, removeEarlier: (file) => given.push(file) });
    expect(given).toEqual([`${written}.${process.pid}.earlier`]);
    expect(fs.readFileSync(given[0]!).equals(bytes)).toBe(true);
    fs.rmSync(given[0]!);
    // A crash between the two renames: the earlier archive is put back, and its frames are taken.
    const dead = endedPid();
    fs.renameSync(written, `${written}.${dead}.earlier`);
    fs.writeFileSync(`${written}.${dead}.tmp`, 'half an archive');
    const again = await archiveAgain();
    expect(again.framesReused).toBe(first.frames);
    expect(fs.readFileSync(written).equals(bytes)).toBe(true);
    expect(beside()).toEqual([path.basename(written)]);
    // With an archive in its place, what it left aside is removed.
    fs.writeFileSync(`${written}.${dead}.earlier`, 'an older archive');
    await archiveAgain();
    expect(beside()).toEqual([path.basename(written)]);
  });

  it('is the same bytes from the files its manifest lists as from a walk of the export', async () => {
    const { folder, written, archiveAgain } = archivedCopy();
    await archiveAgain();
    const walked = fs.readFileSync(written);
    const { files: listed } = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as Manifest;
    const fromManifest = path.join(temporaryFolder(), 'listed.tar.zst');
    const whole = await writeArchive(folder, fromManifest, { listed });
    expect(fs.readFileSync(fromManifest).equals(walked)).toBe(true);
    // The list is what is archived: the folder is not walked again.
    const fewer = await writeArchive(folder, fromManifest, { listed: listed.filter(({ path: file }) => file !== listed.at(-1)!.path) });
    expect(fewer.entries).toBe(whole.entries - 1);
  });

  it('takes no frame of an earlier archive that changed since, nor of one cut short, and nothing for a file whose digest it is not given', async () => {
    const { written, archiveAgain } = archivedCopy();
    const first = await archiveAgain();
    const afresh = fs.readFileSync(written);
    // A flipped bit in the archive the index was written for: the frame it is in is compressed again.
    const damaged = Buffer.from(afresh);
    damaged[Math.floor(damaged.length / 2)]! ^= 0x10;
    fs.writeFileSync(written, damaged);
    const after = await archiveAgain();
    expect(after.framesReused).toBe(first.frames - 1);
    expect(fs.readFileSync(written).equals(afresh)).toBe(true);
    // A bit flipped in place with the archive's modification time put back: its change time still tells.
    const stat = fs.statSync(written, { bigint: true });
    const descriptor = fs.openSync(written, 'r+');
    fs.writeSync(descriptor, Buffer.from([afresh[Math.floor(afresh.length / 2)]! ^ 0x10]), 0, 1, Math.floor(afresh.length / 2));
    fs.closeSync(descriptor);
    expect(spawnSync('touch', ['-m', '-d', `@${stat.mtimeNs / 1_000_000_000n}.${String(stat.mtimeNs % 1_000_000_000n).padStart(9, '0')}`, written]).status).toBe(0);
    expect(fs.statSync(written, { bigint: true }).mtimeNs).toBe(stat.mtimeNs);
    expect((await archiveAgain()).framesReused).toBe(first.frames - 1);
    expect(fs.readFileSync(written).equals(afresh)).toBe(true);
    // An archive of another size is not the one the index describes.
    fs.writeFileSync(written, afresh.subarray(0, afresh.length - 1));
    expect((await archiveAgain()).framesReused).toBe(0);
    expect(fs.readFileSync(written).equals(afresh)).toBe(true);
    // Without its files' digests a frame has no key, so only frames of folders alone are taken.
    const withoutDigests = await archiveAgain(new Map());
    expect(withoutDigests.framesReused).toBeLessThan(withoutDigests.frames);
    expect(fs.readFileSync(written).equals(afresh)).toBe(true);
  });

  it('names the file when one cannot be read whole, and leaves no archive behind', async () => {
    const folder = path.join(temporaryFolder(), 'export');
    fs.cpSync(out, folder, { recursive: true });
    const written = path.join(temporaryFolder(), 'shrunk.tar.zst');
    const landed = fs.readdirSync(folder, { recursive: true }).map(String).find((file) => file.endsWith('.jsonl'))!;
    // The file shrinks between its listing and its reading: the listing is
    // taken first, so the file is cut as the archive reads the folder.
    const full = path.join(folder, landed);
    fs.chmodSync(full, 0o644);
    const original = fs.statSync(full).size;
    const statSync = fs.statSync;
    let cut = false;
    const spy = vi.spyOn(fs, 'statSync').mockImplementation(((file: fs.PathLike, options?: fs.StatSyncOptions) => {
      const stat = statSync(file, options);
      if (!cut && String(file) === full) {
        cut = true;
        fs.truncateSync(full, Math.floor(original / 2));
      }
      return stat;
    }) as typeof fs.statSync);
    try {
      await expect(writeArchive(folder, written)).rejects.toThrow(`${full}: the file shrank while it was archived (${original} bytes when it was listed`);
    } finally {
      spy.mockRestore();
    }
    expect(fs.readdirSync(path.dirname(written))).toEqual([]);
  });
});

describe('a hostile or damaged archive: each case reported, nothing written', () => {
  it('an absolute path, a .. segment, a symbolic link, a hard link and a device', async () => {
    const file = await craft([
      ...realEntries(),
      { name: '/etc/evil', body: 'x' },
      { name: 'export/../evil', body: 'x' },
      { name: 'export/bundle/link', type: 'symlink', linkname: '/etc/passwd' },
      { name: 'export/bundle/hard', type: 'link', linkname: 'export/manifest.json' },
      { name: 'export/bundle/device', type: 'character-device' },
    ]);
    const problems = (await verifyArchive(file)).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: '/etc/evil', what: 'an archive entry where the path is absolute; it was not read' },
        { path: 'export/../evil', what: 'an archive entry where the path has a ".." segment; it was not read' },
        { path: 'export/bundle/link', what: 'a symbolic link; an export holds regular files only, and it was not followed' },
        { path: 'export/bundle/hard', what: 'a hard link; an export holds regular files only, and it was not followed' },
        { path: 'export/bundle/device', what: 'a character device; an export holds regular files only, and it was not followed' },
      ]),
    );
    expect(fs.existsSync('/etc/evil')).toBe(false);
  });

  it('a duplicate entry and a case collision', async () => {
    const entries = realEntries();
    const manifestEntry = entries.find((entry) => entry.name === 'export/manifest.json')!;
    const landed = entries.find((entry) => entry.name.endsWith('.jsonl'))!;
    const file = await craft([...entries, { ...manifestEntry }, { name: landed.name.toUpperCase().replace('EXPORT/', 'export/'), body: 'x' }]);
    const problems = (await verifyArchive(file)).problems;
    expect(problems).toEqual(expect.arrayContaining([{ path: 'export/manifest.json', what: 'a second entry with the same name' }]));
    expect(problems.some((entry) => /differs only in case from export\//.test(entry.what))).toBe(true);
  });

  it('a truncated stream and a flipped bit', async () => {
    const bytes = fs.readFileSync(archive);
    const truncated = path.join(temporaryFolder(), 'truncated.tar.zst');
    fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect((await verifyArchive(truncated)).problems[0]).toEqual({ path: truncated, what: expect.stringMatching(/^the archive is cut short or damaged: /) });
    const flipped = Buffer.from(bytes);
    flipped[Math.floor(flipped.length / 2)]! ^= 0x10;
    const damaged = path.join(temporaryFolder(), 'flipped.tar.zst');
    fs.writeFileSync(damaged, flipped);
    // The frames carry checksums: the flip is caught by the decoder itself.
    expect((await verifyArchive(damaged)).problems[0]).toEqual({ path: damaged, what: "the archive is cut short or damaged: Restored data doesn't match checksum" });
  });
});
