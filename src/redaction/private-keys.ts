// Private keys in PEM however a tool shows them. secretlint's rule finds a
// key whose lines are the key's alone, of the kinds it knows by their first
// bytes; a transcript also holds keys the Read tool or `cat -n` numbered
// (`     2→MIIE…`, `     2\tMIIE…`), keys in a diff (each line after `+`,
// `-` or a space), keys inside a quoted `.env` value with their line breaks
// written `\n` (and `\\n` in JSON inside a string), EC keys, encrypted keys
// (`ENCRYPTED PRIVATE KEY`, and `Proc-Type: 4,ENCRYPTED` with `DEK-Info`),
// and keys cut short by `head`. Everything between the BEGIN line and the
// END line is the key; a key with no END line ends where its lines stop
// looking like a key's.

import type { Span } from './rules.ts';

export const PRIVATE_KEY_RULE = 'private-key';

// The BEGIN line of any private key: RSA, DSA, EC, OPENSSH, PGP's KEY BLOCK,
// ENCRYPTED, and SSH2's `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----`.
const BEGIN = /-{4,5} ?BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}/g;

// A line break as the text holds it: itself, or written `\n` once or more escaped.
const BREAK = String.raw`(?:\r?\n|(?:\\+r)?\\+n)`;
// What a tool puts before a line: the Read tool's or `cat -n`'s number, and a diff's mark.
const PREFIX = String.raw`[ \t]*(?:\d+(?:→|\t))?[+ -]?[ \t]*`;

// The lines of a key with no END line: base64, a header (`Proc-Type: …`), or
// empty. Sticky, so each use makes its own.
const BODY = String.raw`(?:${BREAK}${PREFIX}(?:[A-Za-z0-9+/=]{4,}|[A-Za-z-]+: [^\r\n\\]*)?)*`;
// The line break and prefix before a key's first line.
const LEADING = new RegExp(String.raw`^[ \t]*${BREAK}${PREFIX}`);
// The last line break of a text, and what follows it; read in the text's
// last characters alone, where the END line's prefix is.
const LAST_LINE = new RegExp(String.raw`${BREAK}([^\n\\]*)$`);
const ONLY_PREFIX = new RegExp(String.raw`^${PREFIX}$`);
const TAIL = 256;

// A key holds more than a placeholder (`...`, `<your key>`): a run of base64.
const KEY_MATERIAL = /[A-Za-z0-9+/]{20}/;

// The most text between a BEGIN line and its END line.
const LONGEST_KEY = 16_384;

/** Each private key's body in the text: what lies between its BEGIN and END lines. */
export function privateKeySpans(text: string): Span[] {
  const spans: Span[] = [];
  for (const begin of text.matchAll(BEGIN)) {
    const from = begin.index + begin[0].length;
    let to = endOf(text, from);
    if (to === undefined) {
      const body = new RegExp(BODY, 'y');
      body.lastIndex = from;
      body.exec(text);
      to = body.lastIndex;
    }
    let body = text.slice(from, to);
    const start = from + (LEADING.exec(body)?.[0].length ?? 0);
    body = text.slice(start, to);
    // The END line's prefix, and empty lines, after the key's last line.
    for (let last = LAST_LINE.exec(body.slice(-TAIL)); last && ONLY_PREFIX.test(last[1]!); last = LAST_LINE.exec(body.slice(-TAIL))) body = body.slice(0, body.length - last[0].length);
    body = body.trimEnd();
    if (KEY_MATERIAL.test(body)) spans.push({ start, end: start + body.length, rule: PRIVATE_KEY_RULE });
  }
  return spans;
}

/** Where the END line after `from` starts, when it is near and no other block begins first. */
function endOf(text: string, from: number): number | undefined {
  // Read no further than a key can be long, however many BEGIN lines a text holds.
  const near = text.slice(from, from + LONGEST_KEY);
  const end = /-{4,5} ?END /.exec(near);
  if (!end) return undefined;
  const other = /-{4,5} ?BEGIN /.exec(near);
  return other && other.index < end.index ? undefined : from + end.index;
}
