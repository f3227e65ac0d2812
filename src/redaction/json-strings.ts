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

/** One string of a JSON text: where its token (quotes included) starts and ends, and whether it is an object key. */
export interface JsonString {
  readonly start: number;
  readonly end: number;
  readonly key: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Every string token of a valid JSON text, in order. */
export function jsonStrings(bytes: Buffer): JsonString[] {
  const found: JsonString[] = [];
  let position = bytes.indexOf(QUOTE);
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
    let next = end;
    while (next < bytes.length && (bytes[next] === 0x20 || bytes[next] === 0x0a || bytes[next] === 0x0d || bytes[next] === 0x09)) next++;
    found.push({ start: position, end, key: bytes[next] === 0x3a /* : */ });
    position = bytes.indexOf(QUOTE, end);
  }
  return found;
}

/** The text a string token stands for. */
export function decodeJsonString(bytes: Buffer, token: JsonString): string {
  // Most strings have no escape; those are their bytes, with no parse.
  if (bytes.subarray(token.start + 1, token.end - 1).indexOf(BACKSLASH) < 0) return bytes.toString('utf8', token.start + 1, token.end - 1);
  return JSON.parse(bytes.toString('utf8', token.start, token.end)) as string;
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
