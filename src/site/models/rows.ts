// The `.sd` rows of one conversation, for the site: what its plan needs of
// each row, always; the views of a row's parts when the conversation is
// small; and where each row is in its file, to read it again when it is not.
//
// The site needs a row's content twice: once for its structure (a step's time and flags, its
// search text) and once to render the page that shows it. Holding every row
// of a conversation in between made the renderer's memory grow with the
// conversation's bytes, even once the structure kept only the parts' views
// (bench/results/measurements-behind-choices.md). So each row is outlined as it is loaded
// (row-outline.ts), and the plan is made from the outlines. A conversation
// whose `.sd` is larger than HELD_MOST_BYTES keeps nothing more: a page's
// rows are read and parsed again when it is modelled, and its pages are
// rendered one at a time, so what is held at once is a page's rows. A
// smaller conversation keeps its parts' views in the outlines, as parsing
// each row again costs time that a small conversation need not spend.
// Either way, what is held grows with a conversation's rows, not with its
// texts.

import fs from 'node:fs';
import type { SessionDataRow } from '../../session-data/format.ts';
import type { EvidenceRef } from '../../model/structure.ts';
import { outlineOfRow, shownPartsOf, type RowOutline, type ShownPart } from './row-outline.ts';

/**
 * The most bytes of `.sd` a conversation may have for its parts' views to
 * be held while its pages render.
 */
export const HELD_MOST_BYTES = 64 << 20;

/** How much of a file is read at once for the rows asked for (bytesAt). */
const WINDOW_BYTES = 1 << 20;

/** The parts of rows read again, kept for the next asks: a step of a provider call and the call both cite the same rows. */
const RECENT_ROWS = 256;

/** The rows of one landed file's `.sd`, by row number. */
interface FileRows {
  /** The `.sd` file. */
  readonly file: string;
  /** The SHA-256 of its bytes, once they are all read (ConversationRows.read). */
  digest?: string;
  /** Whether its outlines hold its parts' views (outlineOfRow), or its rows are read again for them. */
  readonly held: boolean;
  readonly outlines: RowOutline[];
  readonly offsets: number[];
  readonly lengths: number[];
}

export class ConversationRows {
  /** By landed file sequence. */
  private readonly files = new Map<number, FileRows>();
  private readonly recent = new Map<string, readonly ShownPart[]>();
  private open: { readonly file: string; readonly descriptor: number } | undefined;

  // The rows of a page are mostly next to each other in their file, so they
  // are read a window at a time rather than one by one, which is faster
  // than a read for each row (bench/results/measurements-behind-choices.md).
  private window: { readonly file: string; readonly start: number; readonly bytes: Buffer } | undefined;

  /**
   * Adds the row of landed file `seq` whose line is at `offset` in `file`
   * (its `.sd`), `length` bytes long: its outline and its place always,
   * and its parts' views when its file's rows are to be `held` (the same
   * for every row of a file).
   */
  add(seq: number, file: string, read: { readonly row: SessionDataRow; readonly offset: number; readonly length: number }, held: boolean): void {
    let rows = this.files.get(seq);
    if (rows === undefined) this.files.set(seq, (rows = { file, held, outlines: [], offsets: [], lengths: [] }));
    const number = read.row.row;
    rows.outlines[number] = outlineOfRow(read.row, rows.held);
    rows.offsets[number] = read.offset;
    rows.lengths[number] = read.length;
  }

  /** Notes that every row of landed file `seq` is added, and the SHA-256 of its `.sd`'s bytes. */
  read(seq: number, digest: string): void {
    const rows = this.files.get(seq);
    if (rows !== undefined) rows.digest = digest;
  }

  /** What the plan needs of the row at `ref`, or undefined when the conversation has none there. */
  outlineOf(ref: EvidenceRef): RowOutline | undefined {
    return this.files.get(ref.seq)?.outlines[ref.row];
  }

  /**
   * What names the row at `ref` and its content: the SHA-256 of its `.sd`
   * and its row number there; undefined when the conversation has no such
   * row. A page's digest takes these in rather than the parts made from the
   * rows (view-digests.ts): a `.sd` of a bundle is written once.
   */
  citeOf(ref: EvidenceRef): string | undefined {
    const rows = this.files.get(ref.seq);
    if (rows?.outlines[ref.row] === undefined) return undefined;
    if (rows.digest === undefined) throw new Error(`${rows.file}: its rows are asked for before it was read whole`);
    return `${rows.digest}:${ref.row}`;
  }

  /** The parts of the row at `ref`, each with its view; undefined when the conversation has no such row. */
  partsOf(ref: EvidenceRef): readonly ShownPart[] | undefined {
    const rows = this.files.get(ref.seq);
    const outline = rows?.outlines[ref.row];
    if (rows === undefined || outline === undefined) return undefined;
    if (rows.held) return outline.parts as readonly ShownPart[];
    const key = `${ref.seq}:${ref.row}`;
    const recent = this.recent.get(key);
    if (recent !== undefined) {
      this.recent.delete(key);
      this.recent.set(key, recent);
      return recent;
    }
    const offset = rows.offsets[ref.row]!;
    const bytes = this.bytesAt(rows.file, offset, rows.lengths[ref.row]!);
    if (bytes === undefined) throw new Error(`${rows.file}: row ${ref.row} is cut short (the file changed while the site read it)`);
    let row: SessionDataRow;
    try {
      row = JSON.parse(bytes.toString('utf8')) as SessionDataRow;
    } catch {
      throw new Error(`${rows.file}: row ${ref.row} at byte ${offset} is not JSON (the file changed while the site read it)`);
    }
    if (row.row !== ref.row) throw new Error(`${rows.file}: the line at byte ${offset} is row ${String(row.row)}, not row ${ref.row} (the file changed while the site read it)`);
    const parts = shownPartsOf(row);
    this.recent.set(key, parts);
    if (this.recent.size > RECENT_ROWS) this.recent.delete(this.recent.keys().next().value!);
    return parts;
  }

  /** Every row, held or not, as `seq:row`: for tests. */
  keys(): string[] {
    return [...this.files].flatMap(([seq, rows]) => Object.keys(rows.outlines).map((row) => `${seq}:${row}`));
  }

  /** Closes the file a row was last read from; a later ask opens it again. */
  close(): void {
    if (this.open !== undefined) fs.closeSync(this.open.descriptor);
    this.open = undefined;
    this.window = undefined;
    this.recent.clear();
  }

  /** The `length` bytes at `offset` in `file`; undefined when the file ends before them. */
  private bytesAt(file: string, offset: number, length: number): Buffer | undefined {
    const window = this.window;
    if (window?.file === file && offset >= window.start && offset + length <= window.start + window.bytes.length) return window.bytes.subarray(offset - window.start, offset - window.start + length);
    const bytes = Buffer.allocUnsafe(Math.max(length, WINDOW_BYTES));
    const read = fs.readSync(this.descriptorOf(file), bytes, 0, bytes.length, offset);
    if (read < length) return undefined;
    this.window = { file, start: offset, bytes: bytes.subarray(0, read) };
    return this.window.bytes.subarray(0, length);
  }

  // One file open at a time: a structure is made stream by stream and a page
  // shows one stream, so the rows asked for come from one file after another.
  private descriptorOf(file: string): number {
    if (this.open?.file === file) return this.open.descriptor;
    this.close();
    this.open = { file, descriptor: fs.openSync(file, 'r') };
    return this.open.descriptor;
  }
}
