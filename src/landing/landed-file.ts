// The landed envelope: one header line, then one line per source record.
//
//   {"h":1,"seq":7,"at":"…","kind":"transcript","adapter":"claude-code/0.1.0",
//    "src":"<path under the source root>","session":"…","stream":"main","state":"available"}
//   {"ord":12,"off":5120,"sha":"<sha-256 of the source line>","payload":<the source line>}
//
// The payload is the source line's bytes, copied through untouched: key
// order, white space and number spelling all survive, and `sha` is over
// exactly those bytes. A header carries what is constant for the file, so the
// file stays interpretable if it is moved out of its folder, and `src` keeps
// the project folder and workflow folder that the storage path deliberately
// drops.
//
// A record whose bytes are not one line of valid UTF-8 JSON cannot be inlined
// without breaking the landed file itself. It is landed all the same, with
// `enc` saying how the payload holds the bytes:
//   "enc":"utf8"    payload is a JSON string of the text (a non-JSON line, a
//                   script, or a document that spans lines)
//   "enc":"base64"  payload is the bytes in base64 (invalid UTF-8)
// `sha` is still over the original bytes, so every record can be checked the
// same way.
//
// A redacted export (src/redaction/) carries derivatives, never claimed as the
// source bytes: the header of such a copy says `"derived":"redacted"`, and a
// record whose payload was changed says `"redacted":<bytes removed>` after
// its `sha`, which is then over the new payload.

import fs from 'node:fs';
import { isAscii, isUtf8 } from 'node:buffer';
import { isJsonText, parseJsonBytes, type ParsedJson } from '../files/json-text.ts';
import { readLines } from '../files/line-reader.ts';

export const ENVELOPE_VERSION = 1;

/** What a landed file holds: one of the source kinds of design-notes/01 §2.3a. */
export type LandedKind = 'transcript' | 'agent_meta' | 'journal' | 'workflow_manifest' | 'workflow_script';

export interface LandedHeader {
  readonly h: number;
  readonly seq: number;
  readonly at: string;
  readonly kind: LandedKind;
  readonly adapter: string;
  readonly src: string;
  readonly session: string;
  readonly stream: string | null;
  /** Present only on files of a workflow run, which belong to no one stream. */
  readonly run?: string;
  /** Present only on a copy made for an export: what it was derived by. */
  readonly derived?: 'redacted';
  readonly state: 'available';
}

export type PayloadEncoding = 'raw' | 'utf8' | 'base64';

export interface LandedRecord {
  /** Ordinal in the source: the line number counted from 1, or 0 for a whole document. */
  readonly ord: number;
  /** Byte offset of the record in the source. */
  readonly off: number;
  /** SHA-256 of the source bytes, in hexadecimal. */
  readonly sha: string;
  readonly encoding: PayloadEncoding;
  /** The source bytes exactly, or on a redacted copy the bytes left after redaction. */
  readonly payload: Buffer;
  /** On a redacted copy, how many bytes were removed from this record's payload. */
  readonly redacted?: number;
}

export function headerLine(header: LandedHeader): string {
  // Fixed key order, so the same landing always produces the same bytes.
  const ordered: Record<string, unknown> = {
    h: header.h,
    seq: header.seq,
    at: header.at,
    kind: header.kind,
    adapter: header.adapter,
    src: header.src,
    session: header.session,
    stream: header.stream,
  };
  if (header.run !== undefined) ordered.run = header.run;
  if (header.derived !== undefined) ordered.derived = header.derived;
  ordered.state = header.state;
  return `${JSON.stringify(ordered)}\n`;
}

/** How a record's bytes can be carried inside one envelope line. */
export function encodingFor(bytes: Buffer): PayloadEncoding {
  if (!isUtf8(bytes)) return 'base64';
  if (bytes.indexOf(0x0a) >= 0 || !isJsonText(bytes)) return 'utf8';
  return 'raw';
}

/**
 * encodingFor, deciding whether the bytes are JSON by parsing them, with the
 * parsed value: for a caller that needs that value anyway. A successful
 * JSON.parse proves what isJsonText checks (both accept exactly RFC 8259's
 * grammar), and parsing a record once instead of scanning it and then parsing
 * it saves the scan.
 */
export function parsedPayloadOf(bytes: Buffer): { encoding: PayloadEncoding; parsed?: ParsedJson } {
  const ascii = isAscii(bytes);
  if (!ascii && !isUtf8(bytes)) return { encoding: 'base64' };
  if (bytes.indexOf(0x0a) >= 0) return { encoding: 'utf8' };
  try {
    return { encoding: 'raw', parsed: parseJsonBytes(bytes, ascii) };
  } catch {
    return { encoding: 'utf8' };
  }
}

/** The envelope line for one record, as pieces to write in order (the raw payload is not copied). */
export function recordLine(ord: number, off: number, sha: string, encoding: PayloadEncoding, bytes: Buffer, redacted?: number): (string | Buffer)[] {
  const start = `{"ord":${ord},"off":${off},"sha":"${sha}"${redacted !== undefined ? `,"redacted":${redacted}` : ''}`;
  switch (encoding) {
    case 'raw':
      return [`${start},"payload":`, bytes, '}\n'];
    case 'utf8':
      return [`${start},"enc":"utf8","payload":${JSON.stringify(bytes.toString('utf8'))}}\n`];
    case 'base64':
      return [`${start},"enc":"base64","payload":"${bytes.toString('base64')}"}\n`];
  }
}

// Every record line this module writes starts exactly like this, so reading
// back never has to parse the payload to find it.
const RECORD_START = /^\{"ord":(\d+),"off":(\d+),"sha":"([0-9a-f]{64})"(?:,"redacted":(\d+))?(?:,"enc":"(utf8|base64)")?,"payload":/;

export class LandedFormatError extends Error {}

/** Parses one record line. Throws LandedFormatError naming what is wrong. */
export function parseRecordLine(line: Buffer): LandedRecord {
  // The fixed prefix is ASCII and short; only that much is decoded to text.
  const start = line.subarray(0, Math.min(line.length, 160)).toString('latin1');
  const match = RECORD_START.exec(start);
  if (!match) throw new LandedFormatError('the line is not a landed record');
  if (line[line.length - 1] !== 0x7d) throw new LandedFormatError('the record line does not end with }');
  const body = line.subarray(match[0].length, line.length - 1);
  const encoding = (match[5] ?? 'raw') as PayloadEncoding;
  let payload: Buffer;
  if (encoding === 'raw') {
    payload = body;
  } else {
    let text: unknown;
    try {
      text = JSON.parse(body.toString('utf8'));
    } catch {
      throw new LandedFormatError(`the ${encoding} payload is not a JSON string`);
    }
    if (typeof text !== 'string') throw new LandedFormatError(`the ${encoding} payload is not a JSON string`);
    payload = encoding === 'utf8' ? Buffer.from(text, 'utf8') : Buffer.from(text, 'base64');
  }
  return { ord: Number(match[1]), off: Number(match[2]), sha: match[3]!, encoding, payload, ...(match[4] !== undefined ? { redacted: Number(match[4]) } : {}) };
}

export function parseHeaderLine(line: Buffer): LandedHeader {
  let header: unknown;
  try {
    header = JSON.parse(line.toString('utf8'));
  } catch {
    throw new LandedFormatError('the header line is not JSON');
  }
  if (typeof header !== 'object' || header === null || (header as { h?: unknown }).h !== ENVELOPE_VERSION) {
    throw new LandedFormatError(`the header line is not an envelope header of version ${ENVELOPE_VERSION}`);
  }
  const value = header as LandedHeader;
  if (typeof value.seq !== 'number' || typeof value.session !== 'string' || typeof value.kind !== 'string') {
    throw new LandedFormatError('the header line lacks seq, session or kind');
  }
  return value;
}

export type LandedEntry = { readonly type: 'header'; readonly header: LandedHeader } | { readonly type: 'record'; readonly row: number; readonly record: LandedRecord };

/**
 * Reads a landed file as its header and then its records, in order, with
 * memory bounded by the longest record. Throws LandedFormatError naming the
 * file and line on anything malformed, including a missing final newline,
 * since a landed file is always written whole.
 */
export function* readLandedFile(file: string): Generator<LandedEntry> {
  const descriptor = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(descriptor).size;
    const reading = { trailingBytes: 0 };
    let row = 0;
    for (const line of readLines(descriptor, 0, size, reading)) {
      try {
        if (row === 0) yield { type: 'header', header: parseHeaderLine(line.bytes) };
        else yield { type: 'record', row, record: parseRecordLine(line.bytes) };
      } catch (error) {
        if (error instanceof LandedFormatError) throw new LandedFormatError(`${file}: line ${row + 1}: ${error.message}`);
        throw error;
      }
      row++;
    }
    if (row === 0) throw new LandedFormatError(`${file}: the file has no header line`);
    if (reading.trailingBytes > 0) throw new LandedFormatError(`${file}: ${reading.trailingBytes} bytes after the last newline; the file is cut short`);
  } finally {
    fs.closeSync(descriptor);
  }
}

/** The payloads of the given rows of a landed file, by row, read in one pass. */
export function readRecordsAt(file: string, rows: ReadonlySet<number>): Map<number, Buffer> {
  const found = new Map<number, Buffer>();
  for (const entry of readLandedFile(file)) {
    if (entry.type === 'record' && rows.has(entry.row)) found.set(entry.row, Buffer.from(entry.record.payload));
  }
  return found;
}
