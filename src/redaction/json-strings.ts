// The strings of a JSON text, found and replaced without re-serialising the
// rest of it.
//
// A secret is a string, so redaction works on decoded strings: a password
// holding a quote or a backslash is `p\"w` in the payload and `p"w` in the
// text a person typed, and only the decoded form matches a rule. A changed
// string is encoded again on its own and put back at its place, so every
// other byte of the record (key order, white space, number spelling, the
// escapes of untouched strings) stays as the source wrote it, and the payload
// stays valid JSON.

/** One string of a JSON text: where its token (quotes included) starts and ends, whether it is an object key, and whether it holds an escape. */
export interface JsonString {
  readonly start: number;
  readonly end: number;
  readonly key: boolean;
  readonly escaped: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Every string token of a valid JSON text, in order. */
export function jsonStrings(bytes: Buffer): JsonString[] {
  const found: JsonString[] = [];
  let position = bytes.indexOf(QUOTE);
  // The first backslash at or after the string being read: each byte is
  // searched for one once, however many strings the text holds.
  let backslash = bytes.indexOf(BACKSLASH);
  while (position >= 0) {
    let end = position + 1;
    for (;;) {
      end = bytes.indexOf(QUOTE, end);
      if (end < 0) throw new Error('a string is not closed');
      // A quote ends the string unless an odd number of backslashes precedes it.
      let slashes = 0;
      while (bytes[end - 1 - slashes] === BACKSLASH) slashes++;
      end++;
      if (slashes % 2 === 0) break;
    }
    if (backslash >= 0 && backslash < position) backslash = bytes.indexOf(BACKSLASH, position);
    let next = end;
    while (next < bytes.length && (bytes[next] === 0x20 || bytes[next] === 0x0a || bytes[next] === 0x0d || bytes[next] === 0x09)) next++;
    found.push({ start: position, end, key: bytes[next] === 0x3a /* : */, escaped: backslash >= 0 && backslash < end });
    position = bytes.indexOf(QUOTE, end);
  }
  return found;
}

/** The text a string token stands for. */
export function decodeJsonString(bytes: Buffer, token: JsonString): string {
  // Most strings have no escape; those are their bytes, with no parse.
  if (!token.escaped) return bytes.toString('utf8', token.start + 1, token.end - 1);
  return JSON.parse(bytes.toString('utf8', token.start, token.end)) as string;
}

/** A string of a JSON text as a reader of its texts needs it: the text, and whether it is an object key. */
export interface JsonStringText {
  readonly text: string;
  readonly key: boolean;
}

/**
 * Every string of a valid JSON text, decoded, in the order of jsonStrings'
 * tokens: the same strings as decodeJsonString of each token. The bytes are
 * decoded once and the strings read from the text: decoding each string's
 * bytes on its own costs more than finding them. A quote or a backslash is
 * never part of a longer UTF-8 sequence, and a malformed sequence ends at the
 * first ASCII byte, so the text's strings are the strings' texts.
 */
export function jsonStringTexts(bytes: Buffer): JsonStringText[] {
  const text = bytes.toString('utf8');
  const found: JsonStringText[] = [];
  let position = text.indexOf('"');
  let backslash = text.indexOf('\\');
  while (position >= 0) {
    let end = position + 1;
    for (;;) {
      end = text.indexOf('"', end);
      if (end < 0) throw new Error('a string is not closed');
      let slashes = 0;
      while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
      end++;
      if (slashes % 2 === 0) break;
    }
    if (backslash >= 0 && backslash < position) backslash = text.indexOf('\\', position);
    let next = end;
    for (let code = text.charCodeAt(next); code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09; code = text.charCodeAt(++next));
    found.push({ text: backslash >= 0 && backslash < end ? (JSON.parse(text.slice(position, end)) as string) : text.slice(position + 1, end - 1), key: text.charCodeAt(next) === 0x3a /* : */ });
    position = text.indexOf('"', end);
  }
  return found;
}

/** The JSON text with some of its string tokens replaced by new texts, each encoded again. */
export function replaceJsonStrings(bytes: Buffer, replacements: ReadonlyMap<JsonString, string>): Buffer {
  const ordered = [...replacements].sort((a, b) => a[0].start - b[0].start);
  const pieces: Buffer[] = [];
  let at = 0;
  for (const [token, text] of ordered) {
    pieces.push(bytes.subarray(at, token.start), Buffer.from(JSON.stringify(text), 'utf8'));
    at = token.end;
  }
  pieces.push(bytes.subarray(at));
  return Buffer.concat(pieces);
}
