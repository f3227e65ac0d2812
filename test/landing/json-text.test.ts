import { describe, expect, it } from 'vitest';
import { isJsonText, SPAN_BYTES, sourceSpansOf, type SourceSpans } from '../../src/landing/json-text.ts';
import { piecesOf, rowLinePieces } from '../../src/session-data/row-text.ts';

// JSON.parse is the reference: the scanner must agree with it on every input,
// because a line it wrongly accepts would be inlined and break the landed file,
// and a line it wrongly rejects would be reported as not JSON.
function agrees(text: string): void {
  let parsed = true;
  try {
    JSON.parse(text);
  } catch {
    parsed = false;
  }
  expect(isJsonText(Buffer.from(text, 'utf8')), JSON.stringify(text)).toBe(parsed);
}

describe('isJsonText', () => {
  it('accepts and rejects the grammar’s edge cases exactly as JSON.parse does', () => {
    const cases = [
      '{}', '[]', '""', '0', '-0', '1.5e10', '1E+2', '-1.0e-3', 'true', 'false', 'null', ' {"a" : [1, 2 , {"b":null}] } ',
      '{"a":"\\u00e9\\n\\t\\"\\\\\\/"}', '[[[[[]]]]]', '{"a":{"b":{"c":[true,false,null]}}}', '"\\ud83d\\ude00"',
      '', ' ', '{', '}', '[', '{"a"}', '{"a":}', '{"a":1,}', '[1,]', '[,1]', '{,}', '01', '1.', '.5', '-', '+1', '1e', '1e+',
      'tru', 'nul', 'True', 'NaN', 'Infinity', '"abc', '"\\x41"', '"\\u12"', '"\\u12G4"', '{"a":1}{"b":2}', '[1] 2', '{"a" 1}',
      '{1:2}', "{'a':1}", '"tab\there"', '"line\nbreak"', '[1,2', '{"a":[}', '{"a":1]', '[}', '"\u2028"', '"é"',
    ];
    for (const text of cases) agrees(text);
  });

  it('agrees with JSON.parse on thousands of random mutations of real-shaped records', () => {
    const records = [
      '{"parentUuid":null,"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi \\"there\\""}]},"n":-12.5e3,"ok":true,"none":null}',
      '{"a":[1,2,{"b":"\\u00e9"}],"c":{"d":[]},"e":"x\\\\y"}',
      '[{"k":0},{"k":1.25},"s",false]',
    ];
    const alphabet = ['{', '}', '[', ']', '"', '\\', ':', ',', ' ', '0', '1', '-', '.', 'e', 'E', '+', 't', 'n', 'u', 'a', '\t', 'x'];
    let state = 12345;
    const random = (limit: number): number => {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      return state % limit;
    };
    for (let round = 0; round < 6000; round++) {
      let text = records[random(records.length)]!;
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(text.length + 1);
        const choice = random(3);
        if (choice === 0) text = text.slice(0, at) + text.slice(at + 1);
        else if (choice === 1) text = text.slice(0, at) + alphabet[random(alphabet.length)]! + text.slice(at);
        else text = text.slice(0, at) + alphabet[random(alphabet.length)]! + text.slice(at + 1);
      }
      agrees(text);
    }
  });

  it('checks only the given range of a larger buffer', () => {
    const bytes = Buffer.from('xx{"a":1}yy');
    expect(isJsonText(bytes, 2, 9)).toBe(true);
    expect(isJsonText(bytes, 2, 8)).toBe(false);
  });
});

// The spans must never change a row: whatever the source looks like, the
// pieces must be exactly JSON.stringify of the value, and a value whose bytes
// JSON.stringify would write differently must not be copied.
describe('sourceSpansOf and rowLinePieces', () => {
  function written(value: unknown, spans: SourceSpans): string {
    return Buffer.concat(rowLinePieces(value, spans).map((piece) => (typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece))).toString('utf8');
  }
  // Every piece wanted, so that every piece that can be copied is.
  const everything = { has: () => true } as unknown as ReadonlySet<unknown>;
  function spansOf(text: string, wanted = everything): { parsed: unknown; spans: SourceSpans } {
    const bytes = Buffer.from(text, 'utf8');
    const parsed: unknown = JSON.parse(text);
    return { parsed, spans: sourceSpansOf(bytes, parsed, wanted) };
  }
  const long = 'x'.repeat(SPAN_BYTES);

  it('writes exactly JSON.stringify of the record, of a row built from its pieces, and of each piece', () => {
    const sources = [
      `{"a":"${long}","b":[1,2.5,-3,1e+21,true,false,null],"c":{"d":"${long}é😀\\n\\t\\"\\\\\\u0001"}}`,
      `{"a" : "${long}", "b":[1, 2],"c":{"d":"${long}"}}`,
      `{"a":"${long}\\/","b":"${long}\\u00e9","c":"${long}\\u001F","d":"${long}\\u001f","e":"${long}\\ud800","f":"${long}\\u000a"}`,
      `{"n":[1.0,1e5,-0,0.1,100,1E2,12345678901234567890],"s":"${long}"}`,
      `{"a":"${long}","a":"${long}y","b":{"k":"${long}"}}`,
      `{"a":{"k":"${long}"},"b":"${long}","a":"${long}z"}`,
      `{"a":["${long}"],"a":{"k":"${long}"},"c":[{"k":"${long}"}],"c":7}`,
      `{"b":"${long}","2":"${long}","1":{"k":"${long}"},"z":{"k":"${long}"}}`,
      `{"\\u006b":"${long}","k\\"":"${long}","é":{"k":"${long}"},"o":{"k":"${long}"}}`,
      `[{"a":"${long}"},[],{},"${long}",[["${long}"]]]`,
      `"${long}"`,
      `{"__proto__":{"k":"${long}"},"x":"${long}"}`,
    ];
    for (const source of sources) {
      const { parsed, spans } = spansOf(source);
      expect(written(parsed, spans), source).toBe(`${JSON.stringify(parsed)}\n`);
      const pieces = typeof parsed === 'object' && parsed !== null ? Object.values(parsed) : [parsed];
      const row = { row: 1, skipped: undefined, parts: pieces.map((piece) => ({ k: 'data', data: piece, also: [piece, undefined] })) };
      expect(written(row, spans), source).toBe(`${JSON.stringify(row)}\n`);
      // As the `.sd` writer does it: only the row's own pieces are wanted.
      const wantedOnly = sourceSpansOf(Buffer.from(source, 'utf8'), parsed, piecesOf(row));
      expect(written(row, wantedOnly), source).toBe(`${JSON.stringify(row)}\n`);
    }
  });

  it('copies the bytes of canonical pieces and of nothing that JSON.stringify would write differently', () => {
    const canonical = spansOf(`{"a":"${long}","b":{"c":"${long}"}}`);
    expect(canonical.spans.containers.has(canonical.parsed as object)).toBe(true);
    expect(canonical.spans.strings.get(long)?.toString()).toBe(`"${long}"`);

    const spaced = spansOf(`{"a": "${long}","b":{"c":"${long}"}}`);
    expect(spaced.spans.containers.has(spaced.parsed as object)).toBe(false);
    expect(spaced.spans.containers.has((spaced.parsed as { b: object }).b)).toBe(true);

    const slash = spansOf(`{"a":"${long}\\/"}`);
    expect(slash.spans.strings.size).toBe(0);
    expect(slash.spans.containers.size).toBe(0);

    const repeated = spansOf(`{"a":"${long}","a":"${long}"}`);
    expect(repeated.spans.containers.size).toBe(0);

    const reordered = spansOf(`{"b":"${long}","1":"${long}"}`);
    expect(reordered.spans.containers.size).toBe(0);

    const number = spansOf(`{"a":"${long}","n":1.0}`);
    expect(number.spans.containers.size).toBe(0);

    const unwanted = spansOf(`{"a":"${long}","b":{"c":"${long}"}}`, new Set([long]));
    expect(unwanted.spans.containers.size).toBe(0);
    expect(unwanted.spans.strings.size).toBe(1);
  });
});

// Random records spelt in every way JSON allows, seeded so that a failure
// repeats: whatever the spelling, the row written from the spans must be
// JSON.stringify's.
describe('sourceSpansOf and rowLinePieces on random records', () => {
  it('writes exactly JSON.stringify of rows built from pieces of 2,000 randomly spelt records', () => {
    let state = 12345;
    const random = (below: number): number => {
      state = (state * 1103515245 + 12345) % 2147483648;
      // The high bits: the low bits of this generator repeat with a short period.
      return Math.floor((state / 2147483648) * below);
    };
    // Half of the records are spelt as JSON.stringify spells them, the others with rare deviations.
    let messy = false;
    const odd = (): boolean => messy && random(40) === 0;
    const space = (): string => (odd() ? [' ', '\n', '\t', '\r'][random(4)]! : '');
    const characters = ['a', 'Z', '/', '"', '\\', '\n', '\u0001', '\u001f', 'é', '😀', '\u2028', 'x'];
    const spellCharacter = (character: string): string => {
      const code = character.charCodeAt(0);
      // Rarer inside strings, so that a long string often has one deviation alone.
      const choice = messy && random(400) === 0 ? 0 : 1;
      if (character === '"' || character === '\\') return `\\${character}`;
      if (character === '\n') return choice === 0 ? '\\u000a' : '\\n';
      if (code < 0x20) return choice === 0 ? `\\u${code.toString(16).padStart(4, '0').toUpperCase()}` : `\\u${code.toString(16).padStart(4, '0')}`;
      if (character === '/' && choice === 0) return '\\/';
      if (choice === 0 && character.length === 1) return `\\u${code.toString(16).padStart(4, '0')}`;
      return character;
    };
    const spellString = (length: number): string => {
      let text = '"';
      for (let index = 0; index < length; index++) text += spellCharacter(characters[random(characters.length)]!);
      return `${text}"`;
    };
    const numbers = ['0', '1', '0.1', '-12.5', '1e+21', '7'];
    const oddNumbers = ['-0', '1.0', '1e5', '1E+2', '-12.5e-3', '123456789012345678901234'];
    const spell = (depth: number): string => {
      const kind = depth > 3 ? random(3) : random(6);
      if (kind === 0) return odd() ? oddNumbers[random(oddNumbers.length)]! : numbers[random(numbers.length)]!;
      if (kind === 1) return ['true', 'false', 'null'][random(3)]!;
      if (kind === 2) return spellString(random(3) === 0 ? 80 + random(40) : random(12));
      if (kind === 3) return `[${space()}${Array.from({ length: random(4) }, () => `${space()}${spell(depth + 1)}${space()}`).join(',')}]`;
      const keys = ['a', 'b', 'text', '1', '0', 'é', 'k\\"', 'a'];
      const count = random(5);
      const members = Array.from({ length: count }, (_, index) => `${space()}"${odd() || random(12) === 0 ? keys[random(keys.length)] : `key${index}`}"${space()}:${space()}${spell(depth + 1)}${space()}`);
      return `{${members.join(',')}${space()}}`;
    };
    const everything = { has: () => true } as unknown as ReadonlySet<unknown>;
    const written = (value: unknown, spans: SourceSpans): string =>
      Buffer.concat(rowLinePieces(value, spans).map((piece) => (typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece))).toString('utf8');
    let copied = 0;
    for (let record = 0; record < 2000; record++) {
      messy = record % 2 === 1;
      const source = `${space()}${spell(0)}${space()}`;
      const bytes = Buffer.from(source, 'utf8');
      const parsed: unknown = JSON.parse(source);
      const pieces: unknown[] = [];
      const gather = (value: unknown): void => {
        pieces.push(value);
        if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) gather(item);
      };
      gather(parsed);
      const row = { row: record, parts: pieces.filter(() => random(2) === 0).map((piece) => ({ k: 'data', data: piece })), whole: parsed };
      for (const wanted of [everything, piecesOf(row)]) {
        const spans = sourceSpansOf(bytes, parsed, wanted);
        expect(written(row, spans), source).toBe(`${JSON.stringify(row)}\n`);
        copied += rowLinePieces(row, spans).filter((piece) => typeof piece !== 'string').length;
      }
    }
    // The copying itself was exercised, not only the fallback.
    expect(copied).toBeGreaterThan(500);
  });
});
