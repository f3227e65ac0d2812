import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readSessionData, readSessionDataHeader } from '../../src/session-data/derive.ts';
import { SESSION_DATA_SCHEMA } from '../../src/session-data/format.ts';
import { temporaryFolder } from '../helpers.ts';

describe('reading some rows of a .sd', () => {
  it('gives the header and the rows asked for, passing over the others unparsed, and parses a line that does not start with its row', () => {
    const file = path.join(temporaryFolder(), 'transcript.sd');
    const lines = [
      JSON.stringify({ h: 1, schema: SESSION_DATA_SCHEMA, dialect: 'claude-code/2', seq: 1 }),
      JSON.stringify({ row: 1, parts: [] }),
      // Not JSON: a reader that parsed it would fail; it is not asked for.
      '{"row":2,"parts":[',
      JSON.stringify({ row: 12, id: 'twelve', parts: [] }),
      JSON.stringify({ id: 'written-otherwise', row: 3, parts: [] }),
      JSON.stringify({ row: 121, parts: [] }),
    ];
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const entries = [...readSessionData(file, { rows: new Set([12, 3]) })];
    expect(entries.map((entry) => (entry.type === 'header' ? 'header' : entry.row.row))).toEqual(['header', 12, 3]);
    expect(() => [...readSessionData(file)]).toThrow(`${file}: line 3: not JSON`);
  });
});

describe('reading the header of a .sd', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('reads its first line, not a reading buffer of its rows: a parse weighs every landed file by it', () => {
    const file = path.join(temporaryFolder(), 'transcript.sd');
    const header = { h: 1, schema: SESSION_DATA_SCHEMA, dialect: 'claude-code/2', seq: 1 };
    const row = JSON.stringify({ row: 1, parts: [{ text: 'x'.repeat(1000) }] });
    fs.writeFileSync(file, `${JSON.stringify(header)}\n${`${row}\n`.repeat(2000)}`);
    const read = vi.spyOn(fs, 'readSync');
    expect(readSessionDataHeader(file)).toEqual(header);
    const bytes = read.mock.results.reduce((sum, result) => sum + (result.value as number), 0);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(64 << 10);
  });

  it('is undefined for a file that is no .sd, or has no whole first line', () => {
    const folder = temporaryFolder();
    const cases: Record<string, string> = { other: `${JSON.stringify({ schema: 'other/1' })}\n`, text: 'not JSON\n', unfinished: JSON.stringify({ h: 1, schema: SESSION_DATA_SCHEMA }), empty: '' };
    for (const [name, text] of Object.entries(cases)) {
      fs.writeFileSync(path.join(folder, name), text);
      expect(readSessionDataHeader(path.join(folder, name)), name).toBeUndefined();
    }
    expect(readSessionDataHeader(path.join(folder, 'missing'))).toBeUndefined();
  });
});
