// Evidence pages: each landed file of a conversation shown in the site row
// by row, so that a step's `{seq, row}` link opens at the exact record,
// pretty-printed, rather than at the top of a raw JSONL file.
//
//   e/<conversation>--<seq>[-N].html   landed file <seq> of the conversation, split into numbered pages
//
// One folder below the root, as every other page (plan.ts). The rows are the
// bundle's landed lines, already redacted for the export; the site never
// reads a source file. A page holds whole rows, from the file's start,
// until the next row would take it past PAGE_WEIGHT; a row alone past it has
// a page of its own, never cut. The split is a function of the lengths of the
// file's lines alone, so the page of a row that a conversation page links
// to is found by reading the file's line ends (EvidencePages), in the
// child that renders the conversation, without rendering a row; the writer
// (generator/evidence-pages.ts) splits with the same function.
//
// Each line is pretty-printed by re-indenting its JSON text rather than by
// parsing and printing it again: the bytes of every string and number stay
// as landed (a number past 2^53 would lose digits through JSON.parse), and
// a line that is not JSON still shows every character but the white space
// between its tokens. The printer works on the landed bytes and writes the
// page's bytes, escaped as it goes: a page is mostly its rows' text, which
// is never decoded into strings and encoded again.

import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { readingBuffer } from '../../files/buffer-pool.ts';
import type { EvidenceRef } from '../../model/structure.ts';
import { pageFileOf, slug } from './page-files.ts';

export const EVIDENCE_FOLDER = 'e';

/**
 * The most a page's rows may weigh: their landed bytes and ROW_WEIGHT each.
 * Pretty-printing and escaping add to a row's bytes, so a page's HTML comes
 * out somewhat above this, well within the conversation pages' budget
 * (plan.ts, PAGE_BUDGET) unless one row is larger than that alone.
 */
const PAGE_WEIGHT = 576 * 1024;

/** What a row adds to a page besides its landed bytes: its wrapper, its label and the indentation of its JSON, roughly. */
export const ROW_WEIGHT = 256;

/** An evidence page's file from the site root: `index` counts the file's pages from 0. */
export function evidencePageFile(conversation: string, seq: number, index: number): string {
  return pageFileOf(`${EVIDENCE_FOLDER}/${slug(conversation)}--${seq}`, index);
}

/** The anchor of a row on its evidence page. */
export function rowAnchor(row: number): string {
  return `row-${row}`;
}

/**
 * The first line of each page, for lines of these byte lengths (the
 * header, line 0, then a line per record): a page takes lines while they
 * fit in PAGE_WEIGHT, and at least one.
 */
export function pageStarts(lengths: readonly number[], weight = PAGE_WEIGHT): number[] {
  const starts: number[] = [];
  let held = 0;
  for (let line = 0; line < lengths.length; line++) {
    const added = lengths[line]! + ROW_WEIGHT;
    if (line === 0 || held + added > weight) {
      starts.push(line);
      held = 0;
    }
    held += added;
  }
  return starts;
}

/** The index of the page that holds `line`, for pages starting at `starts`. */
export function pageOfLine(starts: readonly number[], line: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= line) low = middle;
    else high = middle - 1;
  }
  return low;
}

const NEWLINE = 0x0a;

/** The byte length of each complete line of a file, without its newline: for a landed file, its header, then a line per record. */
export function lineLengthsOf(file: string): number[] {
  const lengths: number[] = [];
  const descriptor = fs.openSync(file, 'r');
  const chunk = readingBuffer(undefined, fs.fstatSync(descriptor).size);
  try {
    let length = 0;
    for (let position = 0; ; ) {
      const got = fs.readSync(descriptor, chunk, 0, chunk.length, position);
      if (got === 0) break;
      position += got;
      let cursor = 0;
      for (let newline = chunk.indexOf(NEWLINE, cursor); newline >= 0 && newline < got; newline = chunk.indexOf(NEWLINE, cursor)) {
        lengths.push(length + newline - cursor);
        length = 0;
        cursor = newline + 1;
      }
      length += got - cursor;
    }
  } finally {
    fs.closeSync(descriptor);
  }
  return lengths;
}

/**
 * The evidence pages of one conversation's landed files, for its pages'
 * links: each file's lines are measured once, when a row of it is first
 * linked.
 */
export class EvidencePages {
  private readonly starts = new Map<number, number[]>();

  /** `landed` is each landed file's path inside the bundle, by sequence (bundle.ts). */
  constructor(
    private readonly bundle: string,
    private readonly conversation: string,
    private readonly landed: ReadonlyMap<number, string>,
  ) {}

  /** The evidence page and anchor of a row, from the site root; undefined when its landed file is not in the bundle. */
  hrefOf(ref: EvidenceRef): string | undefined {
    const landed = this.landed.get(ref.seq);
    if (landed === undefined) return undefined;
    let starts = this.starts.get(ref.seq);
    if (starts === undefined) this.starts.set(ref.seq, (starts = pageStarts(lineLengthsOf(path.join(this.bundle, landed)))));
    return `${evidencePageFile(this.conversation, ref.seq, pageOfLine(starts, ref.row))}#${rowAnchor(ref.row)}`;
  }
}

/** One row of an evidence page: a line of the landed file, line 0 being its header. */
export interface EvidenceRowView {
  readonly row: number;
  /**
   * The line as landed, without its newline, as UTF-8: a line that is not
   * valid UTF-8 has each invalid sequence replaced as a decoder does.
   */
  readonly line: Buffer;
  /** Its landed bytes. */
  readonly bytes: number;
}

/**
 * One page of a landed file's rows. It says nothing of the pages after the
 * next, nor of how many rows the file has: a file that grows adds rows to
 * its last page, or pages after it, and every page before keeps its bytes,
 * so an export after it grew keeps them (generator/evidence-pages.ts).
 */
export interface EvidencePageView {
  /** From the site root. */
  readonly file: string;
  readonly conversation: string;
  readonly seq: number;
  /** The landed file inside the bundle: `<session>/streams/…`. */
  readonly landed: string;
  /** What the file's header says, as given there. */
  readonly header: { readonly kind?: string; readonly stream?: string | null; readonly src?: string; readonly derived?: string };
  /** From 1. */
  readonly number: number;
  readonly previous?: string;
  readonly next?: string;
  readonly rows: EvidenceRowView[];
  /** The landed bytes of its rows, each with its newline, as read from the file: its rows are a function of them and of the first row's number. */
  readonly landedBytes: Buffer;
}

/**
 * The pages of landed file `seq` of a conversation, one at a time, its rows
 * read from `file` (the bundle's copy, at `landed` inside the bundle): the
 * lines measured first, then each page's bytes read in one piece.
 */
export function* evidencePagesOf(conversation: string, seq: number, landed: string, file: string, weight = PAGE_WEIGHT): Generator<EvidencePageView> {
  const lengths = lineLengthsOf(file);
  const starts = pageStarts(lengths, weight);
  const pageFile = (index: number): string => evidencePageFile(conversation, seq, index);
  let header: EvidencePageView['header'] = {};
  const descriptor = fs.openSync(file, 'r');
  try {
    let position = 0;
    for (let index = 0; index < starts.length; index++) {
      // Lines written since they were measured belong to no page.
      const after = starts[index + 1] ?? lengths.length;
      let size = 0;
      for (let line = starts[index]!; line < after; line++) size += lengths[line]! + 1;
      const landedBytes = Buffer.allocUnsafe(size);
      for (let got = 0; got < size; ) {
        const more = fs.readSync(descriptor, landedBytes, got, size - got, position + got);
        if (more === 0) throw new Error(`${file}: the file ended at byte ${position + got}, before the ${lengths.length} lines it was measured with`);
        got += more;
      }
      // A newline byte is never inside a character, so a page of valid UTF-8 has rows of valid UTF-8.
      const valid = isUtf8(landedBytes);
      const rows: EvidenceRowView[] = [];
      let cursor = 0;
      for (let line = starts[index]!; line < after; line++) {
        const raw = landedBytes.subarray(cursor, cursor + lengths[line]!);
        cursor += raw.length + 1;
        rows.push({ row: line, line: valid || isUtf8(raw) ? raw : Buffer.from(raw.toString('utf8')), bytes: raw.length });
      }
      if (index === 0) header = headerFacts(rows[0]!.line.toString('utf8'));
      yield {
        file: pageFile(index),
        conversation,
        seq,
        landed,
        header,
        number: index + 1,
        ...(index > 0 ? { previous: pageFile(index - 1) } : {}),
        ...(index + 1 < starts.length ? { next: pageFile(index + 1) } : {}),
        rows,
        landedBytes,
      };
      position += size;
    }
  } finally {
    fs.closeSync(descriptor);
  }
}

/** What a landed file's header line says of it, for the page's head; nothing when it cannot be read. */
function headerFacts(text: string): EvidencePageView['header'] {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    const facts: { kind?: string; stream?: string | null; src?: string; derived?: string } = {};
    if (typeof value.kind === 'string') facts.kind = value.kind;
    if (typeof value.stream === 'string' || value.stream === null) facts.stream = value.stream;
    if (typeof value.src === 'string') facts.src = value.src;
    if (typeof value.derived === 'string') facts.derived = value.derived;
    return facts;
  } catch {
    return {};
  }
}

/** The bytes of a page being made, in one buffer that grows as they are written. */
export class PageBytes {
  buffer: Buffer;
  length = 0;

  constructor(capacity = 1 << 20) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  /** Makes room for `more` bytes after those written. */
  room(more: number): void {
    if (this.length + more <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.length + more, this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  /** Writes a text as UTF-8. */
  text(text: string): void {
    this.room(text.length * 3);
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  /** The bytes written, valid until more are. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

// What a byte is between tokens: a token the printer places ({ [ } ] , :),
// the start of a string, white space, one of the characters HTML escapes,
// the first byte of a character past ASCII (which may be white space too),
// or a byte of a run of anything else (a number, true, false, null, or text
// that is not JSON). White space is what JavaScript's \s matches.
const OTHER = 0;
const WHITE = 1;
const OPENING = 2;
const CLOSING = 3;
const COMMA = 4;
const COLON = 5;
const QUOTE = 6;
const MARKUP = 7;
const WIDE = 8;
// What a byte is inside a string: its end, the escape that takes the next
// character whole, one of the characters HTML escapes, or anything else
// (OTHER).
const STRING_END = 1;
const STRING_ESCAPE = 2;
const STRING_MARKUP = 3;

const BETWEEN = byteTable(WIDE, [
  [OPENING, '{['],
  [CLOSING, '}]'],
  [COMMA, ','],
  [COLON, ':'],
  [QUOTE, '"'],
  [MARKUP, '&<>'],
  [WHITE, '\t\n\v\f\r '],
]);
const INSIDE = byteTable(OTHER, [
  [STRING_END, '"'],
  [STRING_ESCAPE, '\\'],
  [STRING_MARKUP, '&<>'],
]);

/** A kind for each byte: `wide` for those past ASCII, OTHER for those `kinds` does not name. */
function byteTable(wide: number, kinds: readonly (readonly [number, string])[]): Uint8Array {
  const table = new Uint8Array(256);
  for (let byte = 0x80; byte < 0x100; byte++) table[byte] = wide;
  for (const [kind, characters] of kinds) for (const character of characters) table[character.charCodeAt(0)] = kind;
  return table;
}

/** Most bytes a byte can become: `&amp;`. */
const MOST_ESCAPED = 5;

/**
 * The byte length of the white space character past ASCII that starts at
 * `at`, or 0: U+00A0, U+1680, U+2000 to U+200A, U+2028, U+2029, U+202F,
 * U+205F, U+3000 and U+FEFF, as UTF-8.
 */
function wideWhiteSpaceAt(line: Uint8Array, at: number): number {
  const first = line[at]!;
  if (first === 0xc2) return line[at + 1] === 0xa0 ? 2 : 0;
  if (first < 0xe1 || first > 0xef || at + 2 >= line.length) return 0;
  const second = line[at + 1]!;
  const third = line[at + 2]!;
  if (first === 0xe1) return second === 0x9a && third === 0x80 ? 3 : 0;
  if (first === 0xe2) return (second === 0x80 && (third <= 0x8a || third === 0xa8 || third === 0xa9 || third === 0xaf)) || (second === 0x81 && third === 0x9f) ? 3 : 0;
  if (first === 0xe3) return second === 0x80 && third === 0x80 ? 3 : 0;
  if (first === 0xef) return second === 0xbb && third === 0xbf ? 3 : 0;
  return 0;
}

/** Writes `byte` at `at` as HTML text; returns the position after it. */
function escapedByte(target: Buffer, at: number, byte: number): number {
  if (byte === 0x26 /* & */) {
    target[at] = 0x26;
    target[at + 1] = 0x61;
    target[at + 2] = 0x6d;
    target[at + 3] = 0x70;
    target[at + 4] = 0x3b;
    return at + 5;
  }
  if (byte === 0x3c /* < */ || byte === 0x3e /* > */) {
    target[at] = 0x26;
    target[at + 1] = byte === 0x3c ? 0x6c : 0x67;
    target[at + 2] = 0x74;
    target[at + 3] = 0x3b;
    return at + 4;
  }
  target[at] = byte;
  return at + 1;
}

/**
 * Writes a newline and the indentation of `level` at `at`, first making
 * room for them and `rest` bytes after; returns the position after them.
 */
function newLine(out: PageBytes, at: number, level: number, rest: number): number {
  const needed = 1 + 2 * level + rest;
  if (at + needed > out.buffer.length) {
    out.length = at;
    out.room(needed);
  }
  const target = out.buffer;
  target[at++] = 0x0a;
  for (let space = 2 * level; space > 0; space--) target[at++] = 0x20;
  return at;
}

/**
 * Writes the string token that starts at `position` (escaped), to its
 * closing quote or to the end of a line where it is left open; returns the
 * position after it. Room for it is made already.
 */
function copyString(line: Buffer, position: number, out: PageBytes): number {
  const end = line.length;
  const target = out.buffer;
  let at = out.length;
  target[at++] = 0x22;
  position++;
  while (position < end) {
    const inside = line[position++]!;
    const what = INSIDE[inside]!;
    if (what === OTHER) target[at++] = inside;
    else if (what === STRING_END) {
      target[at++] = inside;
      break;
    } else if (what === STRING_ESCAPE) {
      target[at++] = inside;
      if (position < end) at = escapedByte(target, at, line[position++]!);
    } else at = escapedByte(target, at, inside);
  }
  out.length = at;
  return position;
}

/**
 * Writes the run of anything else that starts at `position` (escaped), to
 * white space, a quote or a token the printer places; returns the position
 * after it. Room for it is made already.
 */
function copyRun(line: Buffer, position: number, out: PageBytes): number {
  const end = line.length;
  const target = out.buffer;
  let at = out.length;
  for (;;) {
    at = escapedByte(target, at, line[position++]!);
    if (position >= end) break;
    const next = BETWEEN[line[position]!]!;
    if (next !== OTHER && next !== MARKUP && (next !== WIDE || wideWhiteSpaceAt(line, position) > 0)) break;
  }
  out.length = at;
  return position;
}

/**
 * Writes a line of JSON (UTF-8) as the HTML text of its pretty-printed
 * form: indented by two spaces a level, one member or element a line, `{}`
 * and `[]` kept whole, `: ` after a key, and every token copied as it is
 * written, its `&`, `<` and `>` escaped (only a token can hold one, never
 * the indentation or the separators). A token is a JSON string (its
 * escapes taken whole), a string left open at the end of the line, a
 * bracket or separator, or a run of anything else; white space between
 * them is the only thing not kept.
 */
export function prettyJsonHtml(line: Buffer, out: PageBytes): void {
  const end = line.length;
  // Every byte a token reads becomes at most MOST_ESCAPED bytes, ': ' included; indentation is counted where it is written.
  out.room(end * MOST_ESCAPED);
  let target = out.buffer;
  let at = out.length;
  let depth = 0;
  let opened = false;
  let position = 0;
  while (position < end) {
    const byte = line[position]!;
    const kind = BETWEEN[byte]!;
    if (kind === WHITE) {
      position++;
      continue;
    }
    if (kind === WIDE) {
      const white = wideWhiteSpaceAt(line, position);
      if (white > 0) {
        position += white;
        continue;
      }
    }
    if (opened) {
      opened = false;
      if (kind === CLOSING) {
        depth--;
        target[at++] = byte;
        position++;
        continue;
      }
      at = newLine(out, at, depth, (end - position) * MOST_ESCAPED);
      target = out.buffer;
    }
    if (kind === OPENING) {
      target[at++] = byte;
      depth++;
      opened = true;
      position++;
    } else if (kind === CLOSING) {
      depth = Math.max(0, depth - 1);
      at = newLine(out, at, depth, (end - position) * MOST_ESCAPED);
      target = out.buffer;
      target[at++] = byte;
      position++;
    } else if (kind === COMMA) {
      target[at++] = byte;
      at = newLine(out, at, depth, (end - position) * MOST_ESCAPED);
      target = out.buffer;
      position++;
    } else if (kind === COLON) {
      target[at++] = byte;
      target[at++] = 0x20;
      position++;
    } else {
      out.length = at;
      position = kind === QUOTE ? copyString(line, position, out) : copyRun(line, position, out);
      at = out.length;
    }
  }
  out.length = at;
}

const TO_ESCAPE = /[&<>]/;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Text as HTML text: every character that could start markup escaped, nothing rendered. */
export function escapeText(text: string): string {
  return TO_ESCAPE.test(text) ? text.replace(/[&<>]/g, (character) => HTML_ESCAPES[character]!) : text;
}

/** Text as the value of a double-quoted HTML attribute. */
export function escapeAttribute(text: string): string {
  return text.replace(/[&<>"]/g, (character) => HTML_ESCAPES[character]!);
}
