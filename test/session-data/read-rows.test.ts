import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSessionData } from '../../src/session-data/derive.ts';
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
