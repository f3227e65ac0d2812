// Bounded memory and a report, never a stack trace, for any archive. Each
// archive below is made in the test and streamed through the zstd command as
// it is made, so that no gigabyte is ever held; the command line verifies
// it as a child process, whose peak memory is read by /usr/bin/time.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Manifest } from '../../src/bundle/manifest.ts';
import { WRITTEN_ENTRY_BYTES } from '../../src/verify/archive.ts';
import { LONGEST_LINE, PARSED_ENTRY_BYTES, ROUND_BYTES } from '../../src/verify/bounds.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { exportedFixtures, temporaryFolder } from '../helpers.ts';
import { BLOCK, END, entriesOf, header, ustarName } from './tar-blocks.ts';

const launcher = fileURLToPath(new URL('../../src/cli/sessionizer.mjs', import.meta.url));
const MiB = 1 << 20;
const GiB = 1 << 30;
/** Far below the 2 GB and more these archives took, and well under 300 MB. */
const PEAK_BYTES = 200 * MiB;

let out: string;
let entries: { name: string; bytes: Buffer }[];
beforeAll(async () => {
  ({ out } = await exportedFixtures([FIXTURE_SESSIONS.rewind]));
  entries = entriesOf(out, 'export');
});

/** A stream of tar pieces, each a buffer or a run of zero bytes, compressed by the zstd command into a file as it is made. */
async function compressed(pieces: (Buffer | { zeros: number })[]): Promise<string> {
  const file = path.join(temporaryFolder(), 'bomb.tar.zst');
  const output = fs.openSync(file, 'w');
  const zstd = spawn('zstd', ['-q', '-1', '-c'], { stdio: ['pipe', output, 'inherit'] });
  const done = new Promise<number | null>((resolve) => zstd.on('close', resolve));
  const input = zstd.stdin!;
  const write = async (bytes: Buffer): Promise<void> => {
    if (!input.write(bytes)) await new Promise((resolve) => input.once('drain', resolve));
  };
  const zeros = Buffer.alloc(8 * MiB);
  for (const piece of pieces) {
    if (Buffer.isBuffer(piece)) await write(piece);
    else for (let left = piece.zeros; left > 0; left -= zeros.length) await write(zeros.subarray(0, Math.min(left, zeros.length)));
  }
  input.end();
  expect(await done).toBe(0);
  fs.closeSync(output);
  return file;
}

/** `sessionizer verify FILE --deep` as a child: its exit status, its error lines, and its peak resident memory in bytes. */
function verified(file: string): { status: number | null; errors: string[]; peak: number } {
  const run = spawnSync('/usr/bin/time', ['-v', process.execPath, launcher, 'verify', file, '--deep'], { encoding: 'utf8' });
  const peak = /Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr);
  expect(peak, run.stderr).not.toBeNull();
  const errors = run.stderr.split('\n').filter((line) => line !== '' && !/^\t/.test(line) && !line.startsWith('Command '));
  return { status: run.status, errors, peak: Number(peak![1]) * 1024 };
}

/** A size field in base 256, for sizes past what 11 octal digits hold. */
function base256(size: number): Buffer {
  const field = Buffer.alloc(12);
  field[0] = 0x80;
  field.writeBigUInt64BE(BigInt(size), 4);
  return field;
}

const named = (predicate: (name: string) => boolean): string => entries.find((found) => predicate(found.name))!.name;
const genuine = (until: string): Buffer[] => entries.slice(0, entries.findIndex((found) => found.name === until)).map((found) => found.bytes);

// Making a bomb streams up to 2 GiB through the zstd command: seconds, more on a busy machine.
const BOMB_TIMEOUT = 120_000;

describe('an archive that would take unbounded memory', () => {
  it('a 2 GiB zero-filled landed file: stopped at its header, one line naming it', async () => {
    const landed = named((name) => name.endsWith('.jsonl'));
    const file = await compressed([...genuine(landed), header({ ...ustarName(landed), sizeField: base256(2 * GiB) }), { zeros: 2 * GiB }, END]);
    const run = verified(file);
    expect(run.errors).toEqual([`error: ${landed}: ${2 * GiB} bytes, more than the ${PARSED_ENTRY_BYTES} a landed file or .sd may have`]);
    expect(run.status).toBe(1);
    expect(run.peak).toBeLessThan(PEAK_BYTES);
  }, BOMB_TIMEOUT);

  it('a landed file whose one line runs past the longest line verify reads: memory bounded by that line, and the file named', async () => {
    const landed = named((name) => name.endsWith('.jsonl'));
    const size = LONGEST_LINE + 8 * MiB;
    const file = await compressed([...genuine(landed), header({ ...ustarName(landed), size }), { zeros: size }, END]);
    const run = verified(file);
    expect(run.status).toBe(1);
    expect(run.errors).toContain(`error: ${landed.slice('export/'.length)}: line 1 is longer than ${LONGEST_LINE} bytes, the longest line verify reads; the rest of the file was not read`);
    expect(run.peak).toBeLessThan(PEAK_BYTES);
  }, BOMB_TIMEOUT);

  it('a 1 GiB round: stopped at its header, one line naming it', async () => {
    const round = named((name) => name.endsWith('.sf'));
    const file = await compressed([...genuine(round), header({ ...ustarName(round), size: GiB }), { zeros: GiB }, END]);
    const run = verified(file);
    expect(run.errors).toEqual([`error: ${round}: ${GiB} bytes, more than the ${ROUND_BYTES} a round may have`]);
    expect(run.status).toBe(1);
    expect(run.peak).toBeLessThan(PEAK_BYTES);
  }, BOMB_TIMEOUT);

  it('a 1 GiB bundle file that is neither evidence nor a round, which --deep would write out to render the site from: stopped at its header', async () => {
    const round = named((name) => name.endsWith('.sf'));
    const label = round.replace(/rounds\/[^/]+$/, 'labels/main/000001-000000000000.json');
    const file = await compressed([...genuine(round), header({ ...ustarName(label), size: GiB }), { zeros: GiB }, END]);
    const run = verified(file);
    expect(run.errors).toEqual([`error: ${label}: ${GiB} bytes, more than the ${WRITTEN_ENTRY_BYTES} a bundle file verify --deep writes out to render the site from may have`]);
    expect(run.status).toBe(1);
    expect(run.peak).toBeLessThan(PEAK_BYTES);
  }, BOMB_TIMEOUT);

  it('a tar cut inside an entry, in a whole zstd stream: one line naming the entry', async () => {
    const landed = entries.find((found) => found.name.endsWith('.jsonl'))!;
    const index = entries.indexOf(landed);
    const cut = landed.bytes.subarray(0, BLOCK + 100);
    const file = await compressed([...entries.slice(0, index).map((found) => found.bytes), cut]);
    const run = verified(file);
    const missing = landed.bytes.length - BLOCK - 100 - (landed.bytes.length - BLOCK - fs.statSync(path.join(out, landed.name.slice('export/'.length))).size);
    expect(run.errors).toEqual([`error: ${landed.name}: the archive ends inside this entry, ${missing} of its bytes short; it is cut short`]);
    expect(run.status).toBe(1);
    expect(run.peak).toBeLessThan(PEAK_BYTES);
  }, BOMB_TIMEOUT);

  it('a header declaring 1 TiB, followed by a few bytes: one line naming the entry', async () => {
    const file = await compressed([...entries.map((found) => found.bytes), header({ name: 'export/huge.bin', sizeField: base256(1024 * GiB) }), { zeros: MiB }]);
    const run = verified(file);
    expect(run.errors).toEqual([`error: export/huge.bin: the archive ends inside this entry, ${1024 * GiB - MiB} of its bytes short; it is cut short`]);
    expect(run.status).toBe(1);
    expect(run.peak).toBeLessThan(PEAK_BYTES);
  }, BOMB_TIMEOUT);

  it('once the manifest has streamed past, an entry larger than it lists: stopped at its header', async () => {
    const manifestEntry = entries.find((found) => found.name === 'export/manifest.json')!;
    const round = named((name) => name.endsWith('.sf'));
    const listed = (JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as Manifest).files.find((file) => `export/${file.path}` === round)!.size;
    const size = listed + 64 * MiB;
    const file = await compressed([entries[0]!.bytes, manifestEntry.bytes, header({ ...ustarName(round), size }), { zeros: size }, END]);
    const run = verified(file);
    expect(run.errors).toEqual([`error: ${round}: ${size} bytes, more than the ${listed} the manifest lists it with`]);
    expect(run.status).toBe(1);
    expect(run.peak).toBeLessThan(PEAK_BYTES);
  }, BOMB_TIMEOUT);
});
