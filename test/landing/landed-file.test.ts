import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeOnce } from '../../src/files/atomic-file.ts';
import { textOf } from '../../src/files/json-text.ts';
import { encodingFor, headerLine, LandedFormatError, parsedPayloadOf, parseRecordLine, readLandedFile, recordLine, type LandedHeader } from '../../src/landing/landed-file.ts';
import { digestOf } from '../../src/files/digest.ts';
import { temporaryFolder } from '../helpers.ts';

const header: LandedHeader = { h: 1, seq: 3, at: '2026-03-01T10:00:00.000Z', kind: 'transcript', adapter: 'claude-code/0.1.0', src: 'p/s.jsonl', session: 's', stream: 'main', state: 'available' };

function line(bytes: Buffer, ord = 1): Buffer {
  const pieces = recordLine(ord, 10, digestOf(bytes), encodingFor(bytes), bytes);
  return Buffer.concat(pieces.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece)));
}

describe('the landed envelope', () => {
  it('inlines a JSON line byte for byte, keeping key order, spacing and number spelling', () => {
    const source = Buffer.from('{"b": 1.50,  "a":[ 1e2 ]}');
    const written = line(source);
    expect(written.toString()).toBe(`{"ord":1,"off":10,"sha":"${digestOf(source)}","payload":{"b": 1.50,  "a":[ 1e2 ]}}\n`);
    const record = parseRecordLine(written.subarray(0, -1));
    expect(record.encoding).toBe('raw');
    expect(record.payload.equals(source)).toBe(true);
  });

  it('encodes a line that is not JSON as text, and invalid UTF-8 as base64, keeping the exact bytes', () => {
    for (const [source, encoding] of [
      [Buffer.from('{"cut off'), 'utf8'],
      [Buffer.from(''), 'utf8'],
      [Buffer.from('{"a":\n1}'), 'utf8'],
      [Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), 'base64'],
    ] as const) {
      const written = line(source);
      expect(written.toString().split('\n').length).toBe(2);
      JSON.parse(written.toString()); // the envelope line itself is always JSON
      const record = parseRecordLine(written.subarray(0, -1));
      expect(record.encoding).toBe(encoding);
      expect(record.payload.equals(source)).toBe(true);
      expect(record.sha).toBe(digestOf(source));
    }
  });

  it('chooses the same encoding by parsing as by scanning, and parses what it inlines to the same value', () => {
    const sources = [
      '{"b": 1.50,  "a":[ 1e2 ]}', '{"é":"ü \\u00e9"}', '{"cut off', '', '{"a":\n1}', ' [1, 2] ', '"\u2028"', '{"a":1}{"b":2}', 'null', '01',
    ].map((text) => Buffer.from(text, 'utf8'));
    sources.push(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), Buffer.from([0x22, 0xc3, 0xa9, 0x22]), Buffer.from([0x22, 0xe9, 0x22]));
    for (const source of sources) {
      const parsed = parsedPayloadOf(source);
      expect(parsed.encoding, source.toString('base64')).toBe(encodingFor(source));
      if (parsed.encoding !== 'raw') {
        expect(parsed.parsed).toBeUndefined();
        continue;
      }
      // Strings of bytes, read back as UTF-8, are the text JSON.parse gives.
      const { value, stringsAsBytes } = parsed.parsed!;
      expect(stringsAsBytes ? textOf(value) : value).toEqual(JSON.parse(source.toString('utf8')));
    }
  });

  it('parses a line as bytes unless it escapes a character beyond ASCII', () => {
    const bytesOf = (text: string) => parsedPayloadOf(Buffer.from(text, 'utf8')).parsed!;
    // é is two bytes; as a string of bytes it is two characters.
    expect(bytesOf('{"t":"é"}')).toEqual({ value: { t: '\xc3\xa9' }, stringsAsBytes: true });
    // An escape of a control character is the same character either way.
    expect(bytesOf('{"t":"\\u001b[0mé"}')).toEqual({ value: { t: '\x1b[0m\xc3\xa9' }, stringsAsBytes: true });
    // \u00e9 names é, not a byte: the line is read as text.
    expect(bytesOf('{"t":"\\u00e9 é"}')).toEqual({ value: { t: 'é é' }, stringsAsBytes: false });
    expect(bytesOf('{"t":"\\u2028"}').stringsAsBytes).toBe(false);
    // An escaped backslash before a u is not an escape; reading it as text is only slower.
    expect(bytesOf('{"t":"\\\\u2028"}')).toEqual({ value: { t: '\\u2028' }, stringsAsBytes: false });
  });

  it('reads a landed file back as its header and records, and names the file and line of a malformed one', () => {
    const folder = temporaryFolder();
    const good = path.join(folder, 'transcript-20260301T100000.000Z-000003.jsonl');
    writeOnce(good, Buffer.concat([Buffer.from(headerLine(header)), line(Buffer.from('{"x":1}'), 1), line(Buffer.from('oops'), 2)]));
    const entries = [...readLandedFile(good)];
    expect(entries.map((entry) => entry.type)).toEqual(['header', 'record', 'record']);
    expect(fs.statSync(good).mode & 0o777).toBe(0o444);

    const bad = path.join(folder, 'transcript-20260301T100000.000Z-000004.jsonl');
    writeOnce(bad, `${headerLine(header)}{"ord":1,"payload":{}}\n`);
    expect(() => [...readLandedFile(bad)]).toThrow(new LandedFormatError(`${bad}: line 2: the line is not a landed record`));

    const cut = path.join(folder, 'transcript-20260301T100000.000Z-000005.jsonl');
    writeOnce(cut, `${headerLine(header)}{"ord":1`);
    expect(() => [...readLandedFile(cut)]).toThrow(/cut short/);
  });

  it('refuses to rewrite a landed file', () => {
    const file = path.join(temporaryFolder(), 'a.jsonl');
    writeOnce(file, 'x\n');
    expect(() => writeOnce(file, 'y\n')).toThrow(/already exists/);
    expect(fs.readFileSync(file, 'utf8')).toBe('x\n');
  });
});
