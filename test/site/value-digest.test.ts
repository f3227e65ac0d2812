// The digest of a value must tell two values apart exactly when their JSON
// texts differ (a Map taken as its entries): a page is kept from an earlier
// render on the strength of it.

import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ValueDigest } from '../../src/site/models/value-digest.ts';

function digest(value: unknown): string {
  const hash = crypto.createHash('sha256');
  const feed = new ValueDigest(hash);
  feed.value(value);
  feed.flush();
  return hash.digest('hex');
}

function json(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (item instanceof Map ? [...item] : item));
}

const long = 'x'.repeat(70_000);
const longWide = '☕'.repeat(40_000);

// Values JSON can write: not undefined or a function on its own, which JSON.stringify does not write at all.
const values: unknown[] = [
  null,
  Number.NaN,
  Infinity,
  0,
  -0,
  1,
  1.5,
  1e21,
  -2,
  true,
  false,
  '',
  'a',
  'null',
  '1',
  'true',
  'é',
  'ÿ',
  '\u0000\u0001\u0000\u0001',
  'ĀĀ',
  '\ud800',
  '\ufffd',
  '☕ café',
  'é'.repeat(100),
  `${'é'.repeat(99)}e`,
  'a'.repeat(32),
  'a'.repeat(33),
  `${'a'.repeat(31)}☕`,
  `${'a'.repeat(32)}☕`,
  long,
  `${long.slice(1)}y`,
  longWide,
  `${longWide.slice(1)}é`,
  [],
  [null],
  [undefined],
  [() => 1],
  ['ab', 'c'],
  ['a', 'bc'],
  // Strings whose characters spell a string's framing: only its length tells them apart.
  ['a', 'b'],
  ['as;b'],
  [`${'a'.repeat(40)}s;${'b'.repeat(40)}`],
  ['a'.repeat(40), 'b'.repeat(40)],
  [`${'a'.repeat(40)}s40;${'b'.repeat(40)}`],
  ['abc'],
  [[]],
  [{}],
  {},
  { a: 1 },
  { a: 1, b: undefined },
  { a: 1, b: () => 2 },
  { a: 1, b: 2 },
  { b: 2, a: 1 },
  { a: '1' },
  { a: [1] },
  { a: { b: 1 } },
  { 'a"': 1 },
  { ab: 'c' },
  { a: 'bc' },
  new Map([['a', 1]]),
  [['a', 1]],
  new Map(),
  new Date(0),
  '1970-01-01T00:00:00.000Z',
  { toJSON: (key: string) => `key ${key}` },
  'key ',
  [{ toJSON: (key: string) => `key ${key}` }],
  ['key 0'],
];

describe('the digest of a value', () => {
  it('is the same for two values exactly when their JSON texts are the same', () => {
    const digests = values.map((value) => digest(value));
    const texts = values.map(json);
    for (let i = 0; i < values.length; i++) {
      for (let j = 0; j < values.length; j++) {
        expect(digests[i] === digests[j], `${texts[i]!.slice(0, 40)} and ${texts[j]!.slice(0, 40)}`).toBe(texts[i] === texts[j]);
      }
    }
  });

  it('is the same whatever buffer boundary a value crosses', () => {
    for (const before of [0, 1, 65_535, 65_536, 65_537]) {
      const value = ['p'.repeat(before), 'é☕'.repeat(20_000), 'q'.repeat(100), long];
      expect(digest(value)).toBe(digest(JSON.parse(JSON.stringify(value))));
      expect(digest(value)).not.toBe(digest([...value.slice(0, 3), `${long}z`]));
    }
  });
});
