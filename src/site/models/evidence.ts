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
// A page holds its rows as landed, compressed (generator/evidence-pages.ts),
// and the site's script shows them pretty-printed in the browser
// (public/evidence.js): here a page is the numbers of its rows and their
// landed bytes, read from the file in one piece.

import fs from 'node:fs';
import path from 'node:path';
import { readingBuffer } from '../../files/buffer-pool.ts';
import type { EvidenceRef } from '../../model/structure.ts';
import { pageFileOf, slug } from './page-files.ts';

export const EVIDENCE_FOLDER = 'e';

/**
 * The most a page's rows may weigh: their landed bytes and ROW_WEIGHT each.
 * The page holds them compressed, a fraction of that, so the weight bounds
 * what a browser expands and lays out at once when the page opens; it also
 * places every row, and so the link to it from the conversation pages.
 */
const PAGE_WEIGHT = 576 * 1024;

/** What a row counts for besides its landed bytes: roughly what a browser lays out for its label and indentation. */
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
  /** Its landed bytes, without its newline. */
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
      const rows: EvidenceRowView[] = [];
      for (let line = starts[index]!; line < after; line++) rows.push({ row: line, bytes: lengths[line]! });
      if (index === 0) header = headerFacts(landedBytes.toString('utf8', 0, lengths[0]));
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
