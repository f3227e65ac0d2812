// Whether a source line is one complete JSON value.
//
// The landed envelope inlines a record's bytes untouched as the value of
// "payload". That is only safe when those bytes are a JSON value: a line that
// is not would make the landed file itself unreadable. So every line is
// checked before it is inlined, and a line that fails is landed encoded
// instead (see landed-file.ts), never dropped.
//
// JSON.parse would answer the same question, but it builds every object and
// string only to throw them away. Measured on the shared corpus (27.9 MB of
// real transcripts): JSON.parse runs at 150-190 MB/s while SHA-256 of the same
// bytes runs at 1,300-1,750 MB/s, so parsing would make landing ten times
// slower than hashing. This checker only scans. Strings, which are most of the
// bytes, are skipped with a tight loop that stops at a quote, a backslash or
// a control byte.
//
// It validates the JSON grammar of RFC 8259. It does not validate UTF-8:
// the caller checks that separately with the native isUtf8, which is faster
// than anything a byte loop can do.

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
    // The plain run: one table look-up a byte, which measured faster than
    // three comparisons.
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
// Where a parsed value's pieces are in its source bytes.
//
// A `.sd` row carries large parts of its record as they were parsed: texts,
// tool inputs, the runtime's structured results. Writing them with
// JSON.stringify and then encoding the text as UTF-8 took 1.1 s of a 7.1 s
// profile of a single-threaded land + .sd of the 200 MB benchmark corpus
// (the stringify in SessionDataWriter.add and Buffer.write), after JSON.parse
// had decoded the same bytes into strings. When a piece's source bytes are
// exactly what JSON.stringify would write for its parsed value, those bytes
// can be copied instead. That is the case for every line Claude Code writes,
// since it writes them with JSON.stringify; any piece that is not (white
// space, an escape JSON.stringify would not write, a number spelt another
// way, a key repeated or reordered by parsing) is simply not recorded, and is
// written by JSON.stringify as before. Over every line of that corpus,
// writing the rows this way took 0.94 s of processor time against 1.25 s
// (the least of five rounds each), this walk included.

/** Source bytes of the parsed values they spell exactly as JSON.stringify would. */
export interface SourceSpans {
  /** By value: equal strings have equal canonical spellings. */
  readonly strings: Map<string, Buffer>;
  /** By identity: the objects and arrays of the parsed value itself. */
  readonly containers: Map<object, Buffer>;
}

// Pieces smaller than this are left to JSON.stringify: a map entry and a
// separate write cost more than writing a short string again.
export const SPAN_BYTES = 64;

/**
 * Walks `bytes` (one JSON value, valid UTF-8) beside `value`, which must be
 * JSON.parse of exactly those bytes, and records the span of every string,
 * object and array in `wanted` of SPAN_BYTES or more whose bytes are exactly
 * what JSON.stringify writes for it. Recording every piece instead (a map
 * entry for each object of the record) cost more than it saved.
 */
export function sourceSpansOf(bytes: Buffer, value: unknown, wanted: ReadonlySet<unknown>): SourceSpans {
  const walker = new SpanWalker(bytes, wanted);
  walker.walk(0, value);
  return { strings: walker.strings, containers: walker.containers };
}

class SpanWalker {
  readonly strings = new Map<string, Buffer>();
  readonly containers = new Map<object, Buffer>();
  // Whether the value just walked is spelt as JSON.stringify spells it.
  private canonical = true;
  // What was recorded, in order, with what it replaced, so that it can be undone.
  private readonly recorded: { spans: Map<unknown, Buffer>; value: unknown; previous: Buffer | undefined }[] = [];
  // The next backslash at or after the position last searched from (the
  // length of the bytes when there is none); -1 before the first search.
  private backslash = -1;

  constructor(
    private readonly bytes: Buffer,
    private readonly wanted: ReadonlySet<unknown>,
  ) {}

  // Returns the position after the value that starts at `position` (after
  // any white space); `this.canonical` then says whether it was canonical.
  walk(position: number, value: unknown): number {
    const bytes = this.bytes;
    const end = bytes.length;
    const start = skipWhiteSpace(bytes, position, end);
    let canonical = start === position;
    const byte = bytes[start];
    let after: number;
    // A value of another type than its bytes can only be met inside an
    // object with a repeated key, whose walk is then undone (see object).
    if (byte === QUOTE) {
      after = this.string(start + 1);
      canonical &&= this.canonical && typeof value === 'string';
      if (canonical && after - start >= SPAN_BYTES && this.wanted.has(value)) this.record(this.strings, value, bytes.subarray(start, after));
    } else if (byte === 0x7b /* { */) {
      after = typeof value === 'object' && value !== null && !Array.isArray(value) ? this.object(start, value as Record<string, unknown>) : this.closed(skipContainer(bytes, start + 1), false);
      canonical &&= this.canonical;
      if (canonical && after - start >= SPAN_BYTES && this.wanted.has(value)) this.record(this.containers, value, bytes.subarray(start, after));
    } else if (byte === 0x5b /* [ */) {
      after = Array.isArray(value) ? this.array(start, value) : this.closed(skipContainer(bytes, start + 1), false);
      canonical &&= this.canonical;
      if (canonical && after - start >= SPAN_BYTES && this.wanted.has(value)) this.record(this.containers, value, bytes.subarray(start, after));
    } else if (byte === 0x74 /* t */) {
      after = start + 4;
    } else if (byte === 0x66 /* f */) {
      after = start + 5;
    } else if (byte === 0x6e /* n */) {
      after = start + 4;
    } else {
      after = skipNumber(bytes, start, end);
      if (after < 0) throw new Error('the bytes are not the JSON they were parsed from');
      canonical &&= sameAscii(bytes, start, after, String(value));
    }
    this.canonical = canonical;
    return after;
  }

  // position is just after the opening quote; returns the position after the
  // closing one. Canonical when every escape is one JSON.stringify writes.
  private string(position: number): number {
    const bytes = this.bytes;
    let canonical = true;
    for (;;) {
      // The bytes are valid JSON, so a string holds no control byte and ends
      // at the first quote that no backslash escapes. Searching for the two
      // with indexOf (memchr) took a third of the time of a loop over every
      // byte on the benchmark corpus.
      const quote = bytes.indexOf(QUOTE, position);
      if (quote < 0) throw new Error('the bytes are not the JSON they were parsed from');
      if (this.backslash < position) {
        const found = bytes.indexOf(BACKSLASH, position);
        this.backslash = found < 0 ? bytes.length : found;
      }
      if (this.backslash > quote) {
        this.canonical = canonical;
        return quote + 1;
      }
      position = this.backslash + 1;
      const escaped = bytes[position++]!;
      if (escaped === 0x75 /* u */) {
        // JSON.stringify writes \u only for control characters without a
        // short escape, in lower case; anything else it writes as itself.
        const code = parseInt(bytes.toString('latin1', position, position + 4), 16);
        if (!(code < 0x20 && SHORT_ESCAPE[code] === 0 && isLowerHex(bytes, position))) canonical = false;
        position += 4;
      } else if (escaped === 0x2f /* / */) {
        canonical = false;
      }
    }
  }

  private record<Key>(spans: Map<Key, Buffer>, value: unknown, bytes: Buffer): void {
    this.recorded.push({ spans: spans as Map<unknown, Buffer>, value, previous: spans.get(value as Key) });
    spans.set(value as Key, bytes);
  }

  private object(start: number, value: Record<string, unknown>): number {
    const bytes = this.bytes;
    const end = bytes.length;
    const keys = Object.keys(value);
    const recordedBefore = this.recorded.length;
    let canonical = true;
    let position = start + 1;
    let index = 0;
    for (;;) {
      let at = skipWhiteSpace(bytes, position, end);
      if (at !== position) canonical = false;
      if (bytes[at] === 0x7d /* } */) return this.closed(at + 1, canonical && index === keys.length);
      if (index > 0) {
        // A comma, then the next key.
        const key = skipWhiteSpace(bytes, at + 1, end);
        if (key !== at + 1) canonical = false;
        at = key;
      }
      const keyEnd = this.string(at + 1);
      // Parsing keeps one of repeated keys and may move keys that look like
      // numbers first; the parsed keys in the source's order is what
      // JSON.stringify would write. Past a difference, the values can no
      // longer be matched to the bytes, so the rest is only skipped.
      if (!this.canonical || index >= keys.length || !sameKey(bytes, at + 1, keyEnd - 1, keys[index]!)) {
        // With a repeated key, the values walked so far were paired with the
        // last value of their key, not necessarily theirs: what they recorded is undone.
        this.undo(recordedBefore);
        return this.closed(skipContainer(bytes, at), false);
      }
      position = skipWhiteSpace(bytes, keyEnd, end);
      if (position !== keyEnd) canonical = false;
      position = this.walk(position + 1, value[keys[index]!]);
      canonical &&= this.canonical;
      index++;
    }
  }

  private array(start: number, value: unknown[]): number {
    const bytes = this.bytes;
    const end = bytes.length;
    let canonical = true;
    let position = start + 1;
    let index = 0;
    for (;;) {
      let at = skipWhiteSpace(bytes, position, end);
      if (at !== position) canonical = false;
      if (bytes[at] === 0x5d /* ] */) return this.closed(at + 1, canonical);
      if (index > 0) at++;
      position = this.walk(at, value[index]);
      canonical &&= this.canonical;
      index++;
    }
  }

  private undo(length: number): void {
    while (this.recorded.length > length) {
      const { spans, value, previous } = this.recorded.pop()!;
      if (previous === undefined) spans.delete(value);
      else spans.set(value, previous);
    }
  }

  private closed(after: number, canonical: boolean): number {
    this.canonical = canonical;
    return after;
  }
}

// 0x08 \b, 0x09 \t, 0x0a \n, 0x0c \f, 0x0d \r: written short by JSON.stringify.
const SHORT_ESCAPE = new Uint8Array(0x20);
for (const code of [0x08, 0x09, 0x0a, 0x0c, 0x0d]) SHORT_ESCAPE[code] = 1;

function isLowerHex(bytes: Uint8Array, position: number): boolean {
  for (let i = position; i < position + 4; i++) {
    const byte = bytes[i]!;
    if (!((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66))) return false;
  }
  return true;
}

function sameAscii(bytes: Uint8Array, start: number, end: number, text: string): boolean {
  if (end - start !== text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[start + i] !== text.charCodeAt(i)) return false;
  return true;
}

// Whether the key's bytes, between its quotes, are the UTF-8 of `key`.
function sameKey(bytes: Buffer, start: number, end: number, key: string): boolean {
  if (end - start === key.length) {
    let i = 0;
    while (i < key.length && bytes[start + i] === key.charCodeAt(i) && key.charCodeAt(i) < 0x80) i++;
    if (i === key.length) return true;
  }
  // Characters beyond ASCII are rare in keys and compared the long way; a key
  // with an escape is taken as different, which only costs its object's span.
  const backslash = bytes.indexOf(BACKSLASH, start);
  if (backslash >= 0 && backslash < end) return false;
  return bytes.toString('utf8', start, end) === key;
}

// From a position inside an open container of valid JSON (not inside a
// string), the position after that container's closing bracket.
function skipContainer(bytes: Uint8Array, start: number): number {
  let depth = 1;
  let position = start;
  const end = bytes.length;
  while (position < end) {
    const byte = bytes[position++]!;
    if (byte === QUOTE) {
      position = skipString(bytes, position, end);
      if (position < 0) break;
    } else if (byte === 0x7b || byte === 0x5b) {
      depth++;
    } else if (byte === 0x7d || byte === 0x5d) {
      if (--depth === 0) return position;
    }
  }
  throw new Error('the bytes are not the JSON they were parsed from');
}
