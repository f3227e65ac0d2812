import { describe, expect, it } from 'vitest';
import { printable, printableLines } from '../../src/files/printable.ts';

describe('text made safe to print on a terminal', () => {
  it('shows every control character, bidirectional control and line separator escaped, and leaves other text as it is', () => {
    expect(printable('-home-\u001b]0;pwned\u0007-\u001b[31mred')).toBe('-home-\\u001b]0;pwned\\u0007-\\u001b[31mred');
    expect(printable('a\nb\rc\td\u0000e\u007f')).toBe('a\\u000ab\\u000dc\\u0009d\\u0000e\\u007f');
    // C1: the one-byte CSI, NEL and the rest.
    expect(printable('\u0080\u0085\u009b31m\u009f')).toBe('\\u0080\\u0085\\u009b31m\\u009f');
    // Bidirectional controls, which show exe.png as gnp.exe, and the separators JSON leaves raw.
    expect(printable('\u202egnp.exe \u061c\u200e\u200f\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069 \u2028\u2029')).toBe('\\u202egnp.exe \\u061c\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069 \\u2028\\u2029');
    for (const plain of ['', 'ordinary text', 'café, naïve, 日本語', '👩‍💻 and 🇫🇷', 'a\\u001b stays as typed']) expect(printable(plain)).toBe(plain);
  });

  it('keeps the newlines of whole lines of output', () => {
    expect(printableLines('one \u001b[2J\ntwo\r\n')).toBe('one \\u001b[2J\ntwo\\u000d\n');
  });

  it('leaves JSON text exact: escaped, it parses to the same value', () => {
    const value = { name: 'a\u001b[31m\u0085\u009b\u202e\u2028\u2029\u007f\n\t"\\é😀', list: ['\u0000', '\u061c'] };
    for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
      const shown = printableLines(text);
      expect(JSON.parse(shown)).toEqual(value);
      expect(/[\p{Cc}\p{Bidi_Control}\u2028\u2029]/u.test(shown.replaceAll('\n', ''))).toBe(false);
    }
    expect(JSON.parse(printable(JSON.stringify(value)))).toEqual(value);
  });
});
