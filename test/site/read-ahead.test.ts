// A waiting renderer reads a session from the storage zone while the export
// parses it, and the load from the bundle takes what it read only where the
// bundle's bytes are the same: the pages must be those of a load that read
// nothing ahead, whatever changed between the two.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { writeExport } from '../../src/export/export-folder.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { loadConversation } from '../../src/site/data/bundle.ts';
import { ReadAhead } from '../../src/site/data/read-ahead.ts';
import { collectOnce, completeLines, copyOfFixtures, temporaryFolder } from '../helpers.ts';

const session = FIXTURE_SESSIONS.nestedAgents;

/**
 * The nested-agents fixture landed and parsed in two passes (its first two
 * lines, then the rest), its storage zone read ahead between them; exported
 * without a site. `files` is how many were read ahead: every `.sd` and round
 * of the first pass, by `reading`.
 */
async function readAheadThenGrown(): Promise<{ bundle: string; files: number; reading: ReadAhead }> {
  const root = copyOfFixtures();
  const data = temporaryFolder();
  const transcript = path.join(root, '-home-user-fixtures-nested-agents', `${session}.jsonl`);
  const lines = completeLines(transcript);
  const joined = (part: Buffer[]): Buffer => Buffer.concat(part.flatMap((line) => [line, Buffer.from('\n')]));
  fs.writeFileSync(transcript, joined(lines.slice(0, 2)));
  collectOnce(root, data);
  parseSession(data, session);
  const reading = new ReadAhead();
  reading.read(data, [session]);
  const files = fs.readdirSync(path.join(data, session), { recursive: true }).filter((name) => String(name).endsWith('.sd')).length + fs.readdirSync(path.join(data, '_conversations', session, 'rounds')).length;
  fs.appendFileSync(transcript, joined(lines.slice(2)));
  collectOnce(root, data);
  parseSession(data, session);
  const out = path.join(temporaryFolder(), 'export');
  await writeExport(data, out, [session], { site: false });
  return { bundle: path.join(out, 'bundle'), files, reading };
}

function used(reading: ReadAhead): { taken: number; refused: number } {
  return { ...reading.use };
}

describe('reading a session ahead', () => {
  it('gives the load from the bundle what it read, and reads what came after it', async () => {
    const { bundle, files, reading } = await readAheadThenGrown();
    const before = used(reading);
    const ahead = loadConversation(bundle, session, { readAhead: reading });
    const after = used(reading);
    // Every file of the first pass; the second pass's files are read from the bundle.
    expect(files).toBeGreaterThan(2);
    expect(after.taken - before.taken).toBe(files);
    expect(after.refused).toBe(before.refused);
    const plain = loadConversation(bundle, session, { readAhead: reading });
    expect(used(reading)).toEqual(after);
    expect(ahead.folded.rounds).toHaveLength(2);
    expect(ahead).toEqual(plain);
  });

  it('reads no more of a session\'s `.sd` than it may hold, and its rounds only with all of it', async () => {
    const root = copyOfFixtures();
    const data = temporaryFolder();
    collectOnce(root, data);
    parseSession(data, session);
    const out = path.join(temporaryFolder(), 'export');
    await writeExport(data, out, [session], { site: false });
    const sessionData = fs.readdirSync(path.join(data, session), { recursive: true }).filter((name) => String(name).endsWith('.sd'));
    const bytes = sessionData.reduce((sum, name) => sum + fs.statSync(path.join(data, session, String(name))).size, 0);
    const bundle = path.join(out, 'bundle');
    const reading = new ReadAhead();
    const plain = loadConversation(bundle, session, { readAhead: reading });
    const before = used(reading);
    reading.read(data, [session], 0);
    loadConversation(bundle, session, { readAhead: reading });
    expect(used(reading)).toEqual(before);
    // All but what does not fit: some `.sd`, not the rounds.
    reading.read(data, [session], bytes - 1);
    expect(loadConversation(bundle, session, { readAhead: reading })).toEqual(plain);
    const partly = used(reading).taken - before.taken;
    expect(partly).toBeGreaterThan(0);
    expect(partly).toBeLessThan(sessionData.length);
    reading.read(data, [session], bytes);
    expect(loadConversation(bundle, session, { readAhead: reading })).toEqual(plain);
    expect(used(reading).taken - before.taken - partly).toBe(sessionData.length + 1);
    expect(used(reading).refused).toBe(before.refused);
  });

  it('reads a bundle file again when its bytes are not those read ahead, and shows the bundle’s', async () => {
    const { bundle, reading } = await readAheadThenGrown();
    const stream = path.join(bundle, session, 'streams', 'main');
    const first = fs.readdirSync(stream).filter((name) => name.endsWith('.sd')).sort()[0]!;
    const file = path.join(stream, first);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    // The first row with a text, its text changed.
    const at = lines.findIndex((line, index) => index > 0 && line.includes('"k":"text"'));
    const row = JSON.parse(lines[at]!) as { parts: { k: string; text?: string }[] };
    lines[at] = JSON.stringify({ ...row, parts: row.parts.map((part) => (part.k === 'text' ? { ...part, text: 'in the bundle' } : part)) });
    // A new file in place of the old, as a redaction writes one: the storage zone's is another inode.
    fs.writeFileSync(`${file}.new`, lines.join('\n'));
    fs.renameSync(`${file}.new`, file);
    const before = used(reading);
    const loaded = loadConversation(bundle, session, { readAhead: reading });
    expect(used(reading).refused - before.refused).toBe(1);
    const parts = loaded.rows.keys().flatMap((key) => loaded.rows.partsOf({ seq: Number(key.split(':')[0]), row: Number(key.split(':')[1]) }) ?? []);
    expect(parts.filter((part) => part.view.segments.some((segment) => segment.text === 'in the bundle'))).toHaveLength(1);
    expect(loaded).toEqual(loadConversation(bundle, session, { readAhead: reading }));
  });

  it('takes no round when the bundle’s chain is not the one read', async () => {
    const { bundle, files, reading } = await readAheadThenGrown();
    const rounds = path.join(bundle, '_conversations', session, 'rounds');
    const first = path.join(rounds, fs.readdirSync(rounds).sort()[0]!);
    // The same round, a byte longer: no longer the bytes read ahead, and still a round.
    const bytes = fs.readFileSync(first);
    fs.rmSync(first);
    fs.writeFileSync(first, Buffer.concat([bytes.subarray(0, bytes.length - 1), Buffer.from(' \n')]));
    const before = used(reading);
    const loaded = (() => {
      try {
        return loadConversation(bundle, session, { readAhead: reading });
      } catch (error) {
        return error as Error;
      }
    })();
    expect(used(reading).refused - before.refused).toBe(1);
    // Every `.sd` is taken; the round is not.
    expect(used(reading).taken - before.taken).toBe(files - 1);
    const plain = (() => {
      try {
        return loadConversation(bundle, session, { readAhead: reading });
      } catch (error) {
        return error as Error;
      }
    })();
    expect(loaded).toEqual(plain);
  });
});
