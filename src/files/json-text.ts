// Whether a source line is one complete JSON value.
//
// The landed envelope inlines a record's bytes untouched as the value of
// "payload". That is only safe when those bytes are a JSON value: a line that
// is not would make the landed file itself unreadable. So every line is
// checked before it is inlined, and a line that fails is landed encoded
// instead (see landed-file.ts), never dropped.
//
// JSON.parse would answer the same question, but it builds every object and
// string only to throw them away, at a small fraction of the speed of
// hashing the same bytes, which landing does anyway. This checker only
// scans. Strings, which are most of the
// bytes, are skipped with a tight loop that stops at a quote, a backslash or
// a control byte.
//
// It validates the JSON grammar of RFC 8259. It does not validate UTF-8:
// the caller checks that separately with the native isUtf8, which is faster
// than anything a byte loop can do.

import { isAscii } from 'node:buffer';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when bytes[start, end) is exactly one JSON value with optional surrounding white space. */
export function isJsonText(bytes: Uint8Array, start = 0, end = bytes.length): boolean {
  let position = skipWhiteSpace(bytes, start, end);
  // A stack of open containers: true for an object, false for an array.
  const open: boolean[] = [];
  // What the grammar accepts next.
  let expectValue = true;
  for (;;) {
    if (expectValue) {
      if (position >= end) return false;
      const byte = bytes[position]!;
      if (byte === 0x7b /* { */) {
        position = skipWhiteSpace(bytes, position + 1, end);
        if (position < end && bytes[position] === 0x7d /* } */) {
          position++;
        } else {
          open.push(true);
          position = readKey(bytes, position, end);
          if (position < 0) return false;
          continue;
        }
      } else if (byte === 0x5b /* [ */) {
        position = skipWhiteSpace(bytes, position + 1, end);
        if (position < end && bytes[position] === 0x5d /* ] */) {
          position++;
        } else {
          open.push(false);
          continue;
        }
      } else if (byte === QUOTE) {
        position = skipString(bytes, position + 1, end);
      } else if (byte === 0x2d /* - */ || (byte >= 0x30 && byte <= 0x39)) {
        position = skipNumber(bytes, position, end);
      } else if (byte === 0x74 /* t */) {
        position = skipWord(bytes, position, end, TRUE);
      } else if (byte === 0x66 /* f */) {
        position = skipWord(bytes, position, end, FALSE);
      } else if (byte === 0x6e /* n */) {
        position = skipWord(bytes, position, end, NULL);
      } else {
        return false;
      }
      if (position < 0) return false;
      expectValue = false;
    }
    // After a value: a separator, a closing bracket, or the end.
    position = skipWhiteSpace(bytes, position, end);
    if (open.length === 0) return position === end;
    if (position >= end) return false;
    const byte = bytes[position]!;
    const inObject = open[open.length - 1]!;
    if (byte === 0x2c /* , */) {
      position = skipWhiteSpace(bytes, position + 1, end);
      if (inObject) {
        position = readKey(bytes, position, end);
        if (position < 0) return false;
      }
      expectValue = true;
    } else if (byte === (inObject ? 0x7d : 0x5d)) {
      open.pop();
      position++;
    } else {
      return false;
    }
  }
}

// Reads `"key" :` and the white space after the colon. Returns the position of
// the value, or -1.
function readKey(bytes: Uint8Array, position: number, end: number): number {
  if (position >= end || bytes[position] !== QUOTE) return -1;
  position = skipString(bytes, position + 1, end);
  if (position < 0) return -1;
  position = skipWhiteSpace(bytes, position, end);
  if (position >= end || bytes[position] !== 0x3a /* : */) return -1;
  return skipWhiteSpace(bytes, position + 1, end);
}

function skipWhiteSpace(bytes: Uint8Array, position: number, end: number): number {
  while (position < end) {
    const byte = bytes[position]!;
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) break;
    position++;
  }
  return position;
}

// position is just after the opening quote. Returns the position after the
// closing quote, or -1.
function skipString(bytes: Uint8Array, position: number, end: number): number {
  for (;;) {
    // The plain run: one table look-up a byte rather than three comparisons.
    while (position < end && STRING_STOP[bytes[position]!] === 0) position++;
    if (position >= end) return -1;
    const byte = bytes[position++]!;
    if (byte === QUOTE) return position;
    if (byte !== BACKSLASH || position >= end) return -1; // a control byte, or a string cut off
    const escaped = bytes[position++]!;
    if (escaped === 0x75 /* u */) {
      if (position + 4 > end) return -1;
      for (let i = 0; i < 4; i++) {
        if (!isHexDigit(bytes[position++]!)) return -1;
      }
    } else if (SIMPLE_ESCAPE[escaped] === 0) {
      return -1;
    }
  }
}

// Bytes that end the plain run inside a string: control bytes, the quote and the backslash.
const STRING_STOP = new Uint8Array(256);
for (let byte = 0; byte < 0x20; byte++) STRING_STOP[byte] = 1;
STRING_STOP[QUOTE] = 1;
STRING_STOP[BACKSLASH] = 1;

// What may follow a backslash, besides u: " \ / b f n r t
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const byte of [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]) SIMPLE_ESCAPE[byte] = 1;

function isHexDigit(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}

// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
function skipNumber(bytes: Uint8Array, position: number, end: number): number {
  if (bytes[position] === 0x2d) position++;
  if (position >= end) return -1;
  if (bytes[position] === 0x30) {
    position++;
  } else if (isDigit(bytes[position])) {
    while (position < end && isDigit(bytes[position])) position++;
  } else {
    return -1;
  }
  if (position < end && bytes[position] === 0x2e /* . */) {
    position++;
    if (position >= end || !isDigit(bytes[position])) return -1;
    while (position < end && isDigit(bytes[position])) position++;
  }
  if (position < end && (bytes[position] === 0x65 || bytes[position] === 0x45)) {
    position++;
    if (position < end && (bytes[position] === 0x2b || bytes[position] === 0x2d)) position++;
    if (position >= end || !isDigit(bytes[position])) return -1;
    while (position < end && isDigit(bytes[position])) position++;
  }
  return position;
}

const TRUE = Uint8Array.from([0x74, 0x72, 0x75, 0x65]);
const FALSE = Uint8Array.from([0x66, 0x61, 0x6c, 0x73, 0x65]);
const NULL = Uint8Array.from([0x6e, 0x75, 0x6c, 0x6c]);

function skipWord(bytes: Uint8Array, position: number, end: number, word: Uint8Array): number {
  if (position + word.length > end) return -1;
  for (let i = 0; i < word.length; i++) {
    if (bytes[position + i] !== word[i]) return -1;
  }
  return position + word.length;
}

// ---------------------------------------------------------------------------
// JSON read as strings of bytes.

/**
 * JSON text parsed from its UTF-8 bytes.
 *
 * When `stringsAsBytes` is true, every string in `value` holds the UTF-8
 * bytes of its text, one character per byte: it is what JSON.parse gives for
 * the bytes read as Latin-1. Reading them as UTF-8 instead makes a string of
 * two-byte characters from any line with one character beyond ASCII, and
 * JSON.parse of that is much slower; most of a transcript's bytes are in
 * such lines. A string of bytes measures its UTF-8 length as
 * its length, and written back as Latin-1 it is exactly its UTF-8 bytes;
 * textOf turns it into text.
 *
 * An escape of a character beyond ASCII (\u00e9) would put a character into
 * such a string that is not a byte of its UTF-8, so a line with one is read
 * as UTF-8, and `stringsAsBytes` is false: its strings are text as usual.
 */
export interface ParsedJson {
  readonly value: unknown;
  readonly stringsAsBytes: boolean;
}

/**
 * JSON.parse of UTF-8 bytes, as strings of bytes where that is safe and
 * makes a difference: bytes that are all ASCII are text either way, and say
 * so. `ascii` is isAscii(bytes), when the caller has it. Throws what
 * JSON.parse throws.
 */
export function parseJsonBytes(bytes: Buffer, ascii = isAscii(bytes)): ParsedJson {
  const stringsAsBytes = !ascii && !hasEscapeBeyondAscii(bytes);
  // ASCII decodes the same either way, and Latin-1 decoding is the faster.
  return { value: JSON.parse(bytes.toString(ascii || stringsAsBytes ? 'latin1' : 'utf8')) as unknown, stringsAsBytes };
}

const UNICODE_ESCAPE = Buffer.from('\\u', 'latin1');

// Whether the bytes hold \uXXXX naming a character beyond ASCII. A \u that
// follows an escaped backslash is not an escape, but taking it for one only
// costs the slower reading of that line.
function hasEscapeBeyondAscii(bytes: Buffer): boolean {
  let position = bytes.indexOf(UNICODE_ESCAPE);
  while (position >= 0) {
    // 0000 to 007f: the first two hex digits are 0 and the third is 0 to 7.
    if (bytes[position + 2] !== 0x30 || bytes[position + 3] !== 0x30 || !(bytes[position + 4]! >= 0x30 && bytes[position + 4]! <= 0x37)) return true;
    position = bytes.indexOf(UNICODE_ESCAPE, position + 2);
  }
  return false;
}

const BEYOND_ASCII = /[\x80-\xff]/;

/**
 * A value with every string of bytes in it (keys included) turned into its
 * text. What holds nothing beyond ASCII is returned as it is, not copied:
 * most identifiers are ASCII even in a line that is not. Each item is turned
 * once; a container is copied from its first changed item on.
 */
export function textOf<Value>(value: Value): Value {
  if (typeof value === 'string') return (BEYOND_ASCII.test(value) ? Buffer.from(value, 'latin1').toString('utf8') : value) as Value;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const text = textOf(item);
      if (copy === undefined && text !== item) copy = value.slice(0, index);
      copy?.push(text);
    }
    return (copy ?? value) as Value;
  }
  // The copy is made from its entries, never by assignment: a key of the
  // record's (`__proto__`) would set the copy's prototype, not a field.
  let entries: [string, unknown][] | undefined;
  for (const key in value) {
    const item: unknown = value[key];
    const text = textOf(item);
    const textKey = textOf(key);
    if (entries === undefined && (text !== item || textKey !== key)) {
      // The keys before this one are ASCII and their items unchanged.
      entries = [];
      for (const earlier in value) {
        if (earlier === key) break;
        entries.push([earlier, value[earlier]]);
      }
    }
    entries?.push([textKey, text]);
  }
  return (entries !== undefined ? Object.fromEntries(entries) : value) as Value;
}
