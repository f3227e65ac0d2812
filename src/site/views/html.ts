// HTML made by plain functions of the page model, escaped by construction:
// `html` is a template tag that escapes every string put into it, so that a
// string from a transcript can only ever be text. Markup reaches a page in
// two ways only: as the result of `html`, or as `trusted`, the output of a
// library that escapes the text it wraps (markdown-it).
//
// Plain functions rather than a component library: the pages run no client
// code, and a library's work for each element was the largest part of a
// renderer's time (docs/dependencies.md).

/** Markup: put into `html` as it is, never escaped again. */
export class Html {
  constructor(readonly text: string) {}
}

/** What a template takes: markup, text to escape, or nothing (false, null, undefined); a list of them in order. */
export type Content = Html | string | number | false | null | undefined | readonly Content[];

/** Markup from a template: each string and number put into it escaped, each Html as it is. */
export function html(strings: TemplateStringsArray, ...values: Content[]): Html {
  let text = strings[0]!;
  for (let index = 0; index < values.length; index++) text += contentText(values[index]!) + strings[index + 1]!;
  return new Html(text);
}

/** The markup of a library that escapes what it wraps, as Html. */
export function trusted(markup: string): Html {
  return new Html(markup);
}

/** ` name="value"`, the value escaped; nothing for no value. */
export function attribute(name: string, value: string | number | undefined): Html {
  return value === undefined ? NOTHING : new Html(` ${name}="${escapeHtml(value)}"`);
}

/** ` name=""` when `on`, as a boolean attribute (a fold's `open`) is written; nothing otherwise. */
export function flag(name: string, on: boolean): Html {
  return on ? new Html(` ${name}=""`) : NOTHING;
}

/**
 * The start of a `<pre>`'s content: a newline when the content starts with
 * one, since an HTML parser drops the first newline after `<pre>`.
 */
export function preStart(content: string): Html {
  return content.startsWith('\n') ? NEWLINE : NOTHING;
}

/** The text of content as markup. */
export function contentText(value: Content): string {
  if (typeof value === 'string') return escapeHtml(value);
  if (value instanceof Html) return value.text;
  if (typeof value === 'number') return String(value);
  if (value === false || value === null || value === undefined) return '';
  let text = '';
  for (const item of value) text += contentText(item);
  return text;
}

const NOTHING = new Html('');
const NEWLINE = new Html('\n');

const ESCAPES: Record<string, string> = { '"': '&quot;', '&': '&amp;', "'": '&#x27;', '<': '&lt;', '>': '&gt;' };
const TO_ESCAPE = /["&'<>]/g;
// Looked for once before replacing: most of the model's strings hold none.
const HOLDS_ESCAPED = /["&'<>]/;

/** Text as HTML text or a double-quoted attribute's value: every character that could start or end markup escaped. */
export function escapeHtml(value: string | number): string {
  const text = String(value);
  return HOLDS_ESCAPED.test(text) ? text.replace(TO_ESCAPE, (character) => ESCAPES[character]!) : text;
}
