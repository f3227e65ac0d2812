// A `.sd` row as JSON text, with JSON.stringify's exact output, written in
// pieces: where a value of the row is a piece of its record whose source
// bytes are already what JSON.stringify would write (sourceSpansOf), those
// bytes are copied instead of being stringified and encoded again. See
// json-text.ts for the measurement that asked for this.

import type { SourceSpans } from '../landing/json-text.ts';
import { SPAN_BYTES } from '../landing/json-text.ts';

// A string of SPAN_BYTES bytes or more has at least this many characters:
// an escape of a control character (\u001f) spends six bytes on one.
const SPAN_CHARACTERS = Math.floor(SPAN_BYTES / 6);

// Keys repeat from row to row; their quoted form is kept, up to this many.
const QUOTED_KEYS_KEPT = 4096;
const quotedKeys = new Map<string, string>();

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = `${JSON.stringify(key)}:`;
    if (quotedKeys.size < QUOTED_KEYS_KEPT) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * The pieces of `JSON.stringify(value)` followed by a newline, in order: text
 * and views of the source bytes in `spans`. `value` must be plain data (no
 * toJSON, no BigInt), as every row is.
 */
export function rowLinePieces(value: unknown, spans: SourceSpans): (string | Buffer)[] {
  const writer = new PieceWriter(spans);
  writer.value(value);
  writer.text += '\n';
  writer.pieces.push(writer.text);
  return writer.pieces;
}

// A row holds its record's pieces at most this far down: the row, its parts
// (or its usage, its flags), each part's fields, and their values.
const PIECE_DEPTH = 3;

/**
 * The strings and containers of a row that may be pieces of its record, for
 * sourceSpansOf: the rest of the record is then walked without a map entry
 * for each of its objects. Pieces deeper inside a piece are not collected;
 * when the piece itself cannot be copied they are written by JSON.stringify.
 */
export function piecesOf(row: unknown): Set<unknown> {
  const pieces = new Set<unknown>();
  collectPieces(row, 0, pieces);
  return pieces;
}

// A function of its own rather than a closure made for each row: tsx wraps
// every named closure in a helper call, which showed in the profile.
function collectPieces(value: unknown, depth: number, pieces: Set<unknown>): void {
  if (typeof value === 'string') {
    if (value.length >= SPAN_CHARACTERS) pieces.add(value);
  } else if (typeof value === 'object' && value !== null) {
    pieces.add(value);
    if (depth === PIECE_DEPTH) return;
    if (Array.isArray(value)) {
      for (const item of value) collectPieces(item, depth + 1, pieces);
    } else {
      for (const key in value) collectPieces((value as Record<string, unknown>)[key], depth + 1, pieces);
    }
  }
}

class PieceWriter {
  readonly pieces: (string | Buffer)[] = [];
  text = '';

  constructor(private readonly spans: SourceSpans) {}

  private copy(bytes: Buffer): void {
    if (this.text !== '') this.pieces.push(this.text);
    this.text = '';
    this.pieces.push(bytes);
  }

  value(value: unknown): void {
    switch (typeof value) {
      case 'string': {
        const bytes = value.length >= SPAN_CHARACTERS ? this.spans.strings.get(value) : undefined;
        if (bytes) this.copy(bytes);
        else this.text += JSON.stringify(value);
        return;
      }
      case 'number':
        this.text += Number.isFinite(value) ? String(value) : 'null';
        return;
      case 'boolean':
        this.text += value ? 'true' : 'false';
        return;
      case 'object': {
        if (value === null) {
          this.text += 'null';
          return;
        }
        const bytes = this.spans.containers.get(value);
        if (bytes) {
          this.copy(bytes);
        } else if (Array.isArray(value)) {
          this.text += '[';
          for (let index = 0; index < value.length; index++) {
            if (index > 0) this.text += ',';
            const item: unknown = value[index];
            // As JSON.stringify writes what has no JSON form inside an array.
            if (item === undefined || typeof item === 'function' || typeof item === 'symbol') this.text += 'null';
            else this.value(item);
          }
          this.text += ']';
        } else {
          this.text += '{';
          let first = true;
          for (const key of Object.keys(value)) {
            const item: unknown = (value as Record<string, unknown>)[key];
            // As JSON.stringify leaves out what has no JSON form inside an object.
            if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
            if (!first) this.text += ',';
            first = false;
            this.text += quotedKey(key);
            this.value(item);
          }
          this.text += '}';
        }
        return;
      }
      default:
        throw new Error(`a row holds a value JSON cannot write: ${typeof value}`);
    }
  }
}
