// The `.sd` rows of one conversation, for the site: held in memory when the
// conversation is small, read again from the bundle by offset when it is not.
//
// The site needs a row's content twice: once to plan (a talk's weight, its
// search text) and once to render the page that shows it. Holding every row
// of a conversation in between made the renderer's memory grow with the
// conversation: the 151 MB conversation of the 1 GB benchmark corpus held
// 500 MB of heap with its rows, and 306 MB once the structure kept only the
// parts' texts. So a conversation whose `.sd` is larger than HELD_MOST_BYTES
// keeps each row's place in its file and nothing else, and a row is read
// and parsed again when it is asked for: its pages are rendered one at a
// time, so what is held at once is a page's rows. A smaller conversation is
// held whole, as parsing each row a second and third time costs time that a
// small conversation does not need to spend.

import fs from 'node:fs';
import type { SessionDataRow } from '../../session-data/format.ts';
import type { EvidenceRef } from '../../session-flow/format.ts';
import { outlineOfRow, type RowOutline } from './row-outline.ts';

/**
 * The most bytes of `.sd` a conversation may have for its rows to be held
 * while its pages render; the same budget as what is read ahead for it
 * (read-ahead.ts), whose rows are parsed already and are held whatever the
 * conversation's size.
 */
export const HELD_MOST_BYTES = 64 << 20;

/** Rows read again and parsed, kept for the next asks: a step of a provider call and the call both cite the same rows. */
const RECENT_ROWS = 256;

export class ConversationRows {
  /** Rows held in memory, by `seq:row`. */
  private readonly held = new Map<string, SessionDataRow>();
  /** What the plan needs of every row (row-outline.ts), by `seq:row`. */
  private readonly outlines = new Map<string, RowOutline>();
  /** The `.sd` file of each landed file, and where each of its rows is, by row number. */
  private readonly placed = new Map<number, { readonly file: string; readonly offsets: number[]; readonly lengths: number[] }>();
  private readonly recent = new Map<string, SessionDataRow>();
  private open: { readonly file: string; readonly descriptor: number } | undefined;

  /**
   * Adds the row of landed file `seq` whose line is at `offset` in `file`
   * (its `.sd`), `length` bytes long: its outline and its place always, the
   * row itself when it is to be `held`.
   */
  add(seq: number, file: string, read: { readonly row: SessionDataRow; readonly offset: number; readonly length: number }, held: boolean): void {
    const key = `${seq}:${read.row.row}`;
    if (held) this.held.set(key, read.row);
    this.outlines.set(key, outlineOfRow(read.row));
    let places = this.placed.get(seq);
    if (places === undefined) this.placed.set(seq, (places = { file, offsets: [], lengths: [] }));
    places.offsets[read.row.row] = read.offset;
    places.lengths[read.row.row] = read.length;
  }

  /** What the plan needs of the row at `ref`, or undefined when the conversation has none there. */
  outlineOf(ref: EvidenceRef): RowOutline | undefined {
    return this.outlines.get(`${ref.seq}:${ref.row}`);
  }

  /** The row at `ref`, or undefined when the conversation has none there. */
  get(ref: EvidenceRef): SessionDataRow | undefined {
    const key = `${ref.seq}:${ref.row}`;
    const held = this.held.get(key);
    if (held !== undefined) return held;
    const recent = this.recent.get(key);
    if (recent !== undefined) {
      this.recent.delete(key);
      this.recent.set(key, recent);
      return recent;
    }
    const bytes = this.bytesOf(ref);
    if (bytes === undefined) return undefined;
    const { file, offsets } = this.placed.get(ref.seq)!;
    let row: SessionDataRow;
    try {
      row = JSON.parse(bytes.toString('utf8')) as SessionDataRow;
    } catch {
      throw new Error(`${file}: row ${ref.row} at byte ${offsets[ref.row]!} is not JSON (the file changed while the site read it)`);
    }
    if (row.row !== ref.row) throw new Error(`${file}: the line at byte ${offsets[ref.row]!} is row ${String(row.row)}, not row ${ref.row} (the file changed while the site read it)`);
    this.recent.set(key, row);
    if (this.recent.size > RECENT_ROWS) this.recent.delete(this.recent.keys().next().value!);
    return row;
  }

  /**
   * The bytes of the row at `ref` as its `.sd` holds them, without its
   * newline; undefined when the conversation has none there. A row is a
   * function of these bytes, so a page's digest takes them in rather than
   * the parts made from them (earlier-pages.ts): reading is far cheaper than
   * parsing.
   */
  bytesOf(ref: EvidenceRef): Buffer | undefined {
    const places = this.placed.get(ref.seq);
    const offset = places?.offsets[ref.row];
    if (places === undefined || offset === undefined) return undefined;
    const bytes = Buffer.allocUnsafe(places.lengths[ref.row]!);
    if (fs.readSync(this.descriptorOf(places.file), bytes, 0, bytes.length, offset) !== bytes.length) throw new Error(`${places.file}: row ${ref.row} is cut short (the file changed while the site read it)`);
    return bytes;
  }

  /** Every row, held or not, as `seq:row`: for tests. */
  keys(): string[] {
    return [...this.outlines.keys()];
  }

  /** Closes the file a row was last read from; a later ask opens it again. */
  close(): void {
    if (this.open !== undefined) fs.closeSync(this.open.descriptor);
    this.open = undefined;
    this.recent.clear();
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
