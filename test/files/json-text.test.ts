import { describe, expect, it } from 'vitest';
import { isJsonText, parseJsonBytes, textOf } from '../../src/files/json-text.ts';

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

describe('parseJsonBytes and textOf', () => {
  it('gives back the text JSON.parse gives, and the same object where nothing is beyond ASCII', () => {
    const source = '{"id":"a1","calls":[{"name":"outil_é"}],"clé":["日本",1,null],"plain":{"x":"y"}}';
    const parsed = parseJsonBytes(Buffer.from(source, 'utf8'));
    expect(parsed.stringsAsBytes).toBe(true);
    const value = parsed.value as { plain: unknown };
    const text = textOf(value);
    expect(text).toEqual(JSON.parse(source));
    expect((text as { plain: unknown }).plain).toBe(value.plain);
    const ascii = { id: 'a1', list: ['x', 2] };
    expect(textOf(ascii)).toBe(ascii);
    expect(parseJsonBytes(Buffer.from('{"a":"b"}')).stringsAsBytes).toBe(false);
  });
});
