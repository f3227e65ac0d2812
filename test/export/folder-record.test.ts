// The record of an export folder's folders, which spares the next export
// listing the whole folder to know that nothing was added to it: any entry
// made anywhere in it since, or a record that cannot be trusted, sends the
// export back to checking the folder against its manifest.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { META_FILES, exportFiles } from '../../src/bundle/manifest.ts';
import { refusalOf } from '../../src/export/destination.ts';
import { writeExport } from '../../src/export/export-folder.ts';
import { recordFolders, stampTrusted, unchangedSinceRecorded } from '../../src/export/folder-record.ts';
import { parsedFixtures, temporaryFolder } from '../helpers.ts';

/** Nanoseconds since the epoch, as Date.now says them. */
function nowInNanoseconds(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

describe('the record of an export folder', () => {
  it('says the folder is unchanged until an entry is made anywhere in it, and the export is still refused or allowed by its manifest', { timeout: 120_000 }, async () => {
    const { data } = parsedFixtures([FIXTURE_SESSIONS.rewind]);
    const out = path.join(temporaryFolder(), 'export');
    await writeExport(data, out, [FIXTURE_SESSIONS.rewind]);
    expect(unchangedSinceRecorded(data, out)).toBe(true);
    expect(refusalOf({ out, data })).toBeUndefined();

    const deep = path.dirname(path.join(out, exportFiles(out, 'bundle').files.find((file) => file.endsWith('.jsonl'))!));
    for (const dropped of [path.join(deep, 'mine.txt'), path.join(out, 'site', 'c', 'mine.html'), path.join(out, 'mine.txt')]) {
      fs.writeFileSync(dropped, 'mine\n');
      expect(unchangedSinceRecorded(data, out), dropped).toBe(false);
      expect(refusalOf({ out, data }), dropped).toMatch(new RegExp(`it is an export of this tool, but ${path.relative(out, dropped).replaceAll('.', '\\.')} is not in its manifest`));
      fs.rmSync(dropped);
      // The folder changed, and is listed again: what it holds is all in the manifest.
      expect(unchangedSinceRecorded(data, out), dropped).toBe(false);
      expect(refusalOf({ out, data }), dropped).toBeUndefined();
    }
    fs.mkdirSync(path.join(out, 'bundle', 'mine'));
    expect(unchangedSinceRecorded(data, out)).toBe(false);
  });

  it('records a folder changed just before the swap by its names, and only the names the export wrote', { timeout: 120_000 }, async () => {
    const { data } = parsedFixtures([FIXTURE_SESSIONS.rewind]);
    const out = path.join(temporaryFolder(), 'export');
    await writeExport(data, out, [FIXTURE_SESSIONS.rewind]);
    const files = [...exportFiles(out).files.filter((file) => !META_FILES.has(file)), ...META_FILES];
    // As if every folder had changed since the swap: swapped before any of them was made.
    recordFolders(data, out, files, 0n);
    const record = fs.readdirSync(path.join(data, '_exports')).find((name) => name.endsWith('.folders.json'))!;
    const folders = (JSON.parse(fs.readFileSync(path.join(data, '_exports', record), 'utf8')) as { folders: Record<string, unknown> }).folders;
    expect(Object.values(folders).every(Array.isArray)).toBe(true);
    expect(folders['']).toEqual(['.sessionizer-export', 'bundle', 'manifest-sha256.txt', 'manifest.json', 'root-digest.txt', 'site']);
    expect(unchangedSinceRecorded(data, out)).toBe(true);
    fs.writeFileSync(path.join(out, 'site', 'mine.html'), 'mine\n');
    expect(unchangedSinceRecorded(data, out)).toBe(false);

    // A name the export did not write, in a folder whose stamp could hide it: nothing is recorded.
    recordFolders(data, out, files, 0n);
    expect(fs.existsSync(path.join(data, '_exports', record))).toBe(false);
    expect(unchangedSinceRecorded(data, out)).toBe(false);
    fs.rmSync(path.join(out, 'site', 'mine.html'));
    // Swapped well after the folders last changed: every one by its stamp.
    await new Promise((resolve) => setTimeout(resolve, 100));
    recordFolders(data, out, files, nowInNanoseconds());
    const stamped = (JSON.parse(fs.readFileSync(path.join(data, '_exports', record), 'utf8')) as { folders: Record<string, unknown> }).folders;
    // Every one but a folder whose change time happens to be a whole millisecond, taken as a coarse file system's.
    for (const [folder, value] of Object.entries(stamped)) {
      if (typeof value !== 'string') expect(fs.statSync(path.join(out, folder), { bigint: true }).ctimeNs % 1_000_000n, folder).toBe(0n);
    }
    expect(Object.values(stamped).filter((value) => typeof value === 'string').length).toBeGreaterThan(Object.keys(stamped).length / 2);
    expect(unchangedSinceRecorded(data, out)).toBe(true);
  });

  it('trusts a folder\'s stamp only from well before the swap, on a file system that keeps times finer than a millisecond', () => {
    const swapped = 1_800_000_000_000_000_000n;
    expect(stampTrusted(swapped - 1_000_000_000n + 123_456n, swapped)).toBe(true);
    // Changed in the last ticks before the swap: a change after it could have the same time.
    expect(stampTrusted(swapped - 10_000_000n + 123_456n, swapped)).toBe(false);
    // Whole seconds or milliseconds: FAT, exFAT, HFS+.
    expect(stampTrusted(swapped - 5_000_000_000n, swapped)).toBe(false);
    expect(stampTrusted(swapped - 5_000_000_000n + 7_000_000n, swapped)).toBe(false);
  });

  it('is not trusted when it is damaged or names another folder', { timeout: 120_000 }, async () => {
    const { data } = parsedFixtures([FIXTURE_SESSIONS.rewind]);
    const out = path.join(temporaryFolder(), 'export');
    await writeExport(data, out, [FIXTURE_SESSIONS.rewind]);
    const record = path.join(data, '_exports', fs.readdirSync(path.join(data, '_exports')).find((name) => name.endsWith('.folders.json'))!);
    const text = fs.readFileSync(record, 'utf8');
    fs.writeFileSync(record, text.slice(0, text.length / 2));
    expect(unchangedSinceRecorded(data, out)).toBe(false);
    fs.writeFileSync(record, text.replace(JSON.stringify(path.resolve(out)), JSON.stringify(path.resolve(out, 'elsewhere'))));
    expect(unchangedSinceRecorded(data, out)).toBe(false);
    fs.writeFileSync(record, text);
    expect(unchangedSinceRecorded(data, out)).toBe(true);
  });
});
