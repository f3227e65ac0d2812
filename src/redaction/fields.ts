// Fields whose name says they hold a secret, wherever a transcript writes
// them: as a key of a record's JSON (scan.ts reads those from the JSON
// itself), and as text a tool showed: JSON inside a string (quotes escaped
// once for each level of nesting), a YAML mapping (`password: …`), an INI,
// TOML or properties assignment (`password = …`), an HTTP header
// (`X-API-Key: …`), and a URL's query or fragment (`?access_token=…`,
// `#access_token=…`). One name test and one value test serve all of them.

import type { Span } from './rules.ts';

export const SECRET_FIELD_RULE = 'secret-field';

// The words a name ends in when it says its value is a secret: password,
// api_key, client_secret, clientSecret, authToken, aws_secret_access_key,
// secret_key_base … Each word is its parts, which a name may join with `_`,
// `.` or `-`.
const SECRET_WORDS: readonly (readonly string[])[] = [['password'], ['passwd'], ['passphrase'], ['secret'], ['token'], ['api', 'key'], ['access', 'key'], ['private', 'key'], ['secret', 'key', 'base']];

// The words with their parts joined: a name with its separators taken out ends in one.
const SECRET_NAME = new RegExp(`(?:${SECRET_WORDS.map((parts) => parts.join('')).join('|')})$`, 'i');

// The words as text spells them, a separator or none between their parts.
const SPELLED = SECRET_WORDS.map((parts) => parts.join('[_.-]?')).join('|');

/** Whether a field's name says its value is a secret. Separators do not count: `api_key`, `api-key` and `apiKey` are one name. */
export function isSecretField(name: string): boolean {
  return SECRET_NAME.test(name.replace(/[_.-]/g, ''));
}

// The words a value in a configuration or in code is when it is no secret:
// types, empty values, and the masks a tool prints instead of a secret; and
// a value cut short with an ellipsis, as documentation shows one.
const NOT_A_VALUE = /^(?:string|number|boolean|bytes|object|null|undefined|none|nil|true|false|required|optional|secret|password|token|\*+|x+|\.+|-+)$|\.\.\.|…/i;

// A name, in any of its spellings, that ends in one of SECRET_WORDS;
// isSecretField has the last word on it.
const NAME = String.raw`[A-Za-z0-9_.-]*?(?:${SPELLED})`;

// `"name": "value"` in JSON text, at any depth of nesting, and the
// `'name': 'value'` of a Python dictionary printed: each quote of a string
// nested N levels deep is preceded by 2^N-1 backslashes, the same run for the
// name's and the value's quotes. The value ends at the first quote that run
// closes.
const JSON_FIELD = new RegExp(String.raw`(\\*)(["'])(${NAME})\1\2[ \t]*:[ \t]*\1(["'])((?:(?!\4)[^\\\n]|\\.)*?)(?<!\\)\1\4`, 'dgi');

// `name: value` or `name = value` alone on its line, after what a tool puts
// before the lines of a file it shows (`   12→`, `12\t`, a diff's `+`), a
// list's dash or `export`. The value is one word, quoted or not, to the end
// of the line or a comment: code (`password: string;`, `token = getToken()`)
// goes on with punctuation and is left alone.
const LINE_FIELD = new RegExp(String.raw`^[ \t]*(?:\d+(?:→|\t))?[+-]?[ \t]*(?:-[ \t]+|export[ \t]+)?(["']?)(${NAME})\1[ \t]*(?::[ \t]+|=[ \t]*)(["']?)([^\s"'\x60;,(){}\[\]]+)\3[ \t]*(?:#.*)?$`, 'dgi');

// `?name=value` or `&name=value` in a URL's query, and `#name=value` in its
// fragment, where an OAuth implicit grant hands over its access token.
const QUERY_FIELD = new RegExp(String.raw`[?&#](${NAME})=([^&\s"'\x60<>#]+)`, 'dgi');

// `Name: value` of an HTTP header anywhere on a line (`-H "X-API-Key: …"`,
// `Private-Token: …`, `api-key: …`): a name of words joined by dashes, as
// headers are named; a scheme before the value (`Token …`) is passed over.
// Names without a dash are found alone on their line, as YAML, where code
// (`{ token: accessToken }`) cannot be mistaken for them.
const HEADER_FIELD = new RegExp(String.raw`(?<![A-Za-z0-9_.-])((?:[A-Za-z0-9]+-)*(?:${SPELLED})):[ \t]*(?:(?:Bearer|Basic|Token)[ \t]+)?([^\s"'\x60;,(){}\[\]<>]+)(?![^\s"'\x60;,])`, 'dgi');

// A value naming a field of an object (`config.password`, `os.environ.TOKEN`)
// is a reference to a secret, not one. Its names are words, digits only at
// their end: a token's dotted parts (a JWT's) mix them.
const REFERENCE = /^[A-Za-z_$][A-Za-z_$]*\d*(?:\.[A-Za-z_$][A-Za-z_$]*\d*)+$/;

/**
 * Whether a secret-named field's value can be a secret: one word, long
 * enough, not a number, a type, a mask or a placeholder, and no reference to
 * a secret held elsewhere (`$TOKEN`, `${…}`, `<password>`, `%(password)s`,
 * `config.password`).
 */
export function isSecretValue(value: string): boolean {
  return value.length >= 6 && !/\s/.test(value) && !/^[$<{(%]/.test(value) && !/^\[redacted:/.test(value) && !NOT_A_VALUE.test(value) && !/^[0-9.]+$/.test(value) && !REFERENCE.test(value);
}

// A word a secret-named field's name ends in, as a line holding one is found fast.
const KEYWORD = new RegExp(SPELLED, 'gi');

// Each form: its expression, and the groups of the name and the value.
const LINE_FORMS = [
  [JSON_FIELD, 3, 5],
  [LINE_FIELD, 2, 4],
  [QUERY_FIELD, 1, 2],
] as const;

const COLON = 0x3a;

/** The values of secret-named fields written as text: JSON at any depth, YAML, INI, TOML and properties lines, HTTP headers, URL queries and fragments. */
export function secretFieldSpans(text: string): Span[] {
  const spans: Span[] = [];
  const found = (match: RegExpMatchArray, nameGroup: number, valueGroup: number, lineStart: number): void => {
    const value = match[valueGroup]!;
    if (!isSecretField(match[nameGroup]!) || !isSecretValue(value)) return;
    const [start, end] = match.indices![valueGroup]!;
    spans.push({ start: lineStart + start, end: lineStart + end, rule: SECRET_FIELD_RULE });
  };
  // Each form is written on one line, so only the lines that hold a keyword
  // are read, each once; a header's name ends in its keyword, so only a line
  // with a keyword right before a colon is read for headers.
  let lineStart = 0;
  let lineEnd = -1;
  let line = '';
  let headersRead = -1;
  for (const keyword of text.matchAll(KEYWORD)) {
    if (keyword.index >= lineEnd) {
      lineStart = text.lastIndexOf('\n', keyword.index) + 1;
      const newline = text.indexOf('\n', keyword.index);
      lineEnd = newline < 0 ? text.length : newline;
      line = text.slice(lineStart, lineEnd);
      for (const [pattern, nameGroup, valueGroup] of LINE_FORMS) for (const match of line.matchAll(pattern)) found(match, nameGroup, valueGroup, lineStart);
    }
    if (headersRead !== lineStart && text.charCodeAt(keyword.index + keyword[0].length) === COLON) {
      headersRead = lineStart;
      for (const match of line.matchAll(HEADER_FIELD)) if (match[1]!.includes('-')) found(match, 1, 2, lineStart);
    }
  }
  return spans;
}
