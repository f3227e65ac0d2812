import { describe, expect, it } from 'vitest';
import { compareBytes } from '../../src/bundle/manifest.ts';

describe('the order of paths in a manifest and an archive', () => {
  it('is the order of their UTF-8 bytes, characters beyond U+FFFF included', () => {
    const names = ['a', 'a/b', 'a-b', 'ab', 'A', 'é', 'e\u0301', '\u00ff', '\u0100', '\ud7ff', '\ue000', '\uffff', '\u{1f600}', '\u{10000}', 'x\u{1f600}y', 'x\uffffy', 'x', ''];
    const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
    for (const a of names) for (const b of names) expect(Math.sign(compareBytes(a, b)), `${JSON.stringify(a)} against ${JSON.stringify(b)}`).toBe(byBytes(a, b));
  });
});
