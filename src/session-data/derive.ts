// Writes the `.sd` for a landed file, and reads `.sd` files back.
//
// The conversion itself belongs to the adapter, which is the only code that
// knows its runtime's fields. This module knows only the two formats: it feeds
// each landed record to the adapter's converter, writes the rows write-once
// beside the landed file with the same sequence number, and accounts for every
// record: each landed record gets exactly one row.

import type crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PendingFile, READ_ONLY, type PendingOptions } from '../files/atomic-file.ts';
import { readLandedFile, type LandedHeader, type LandedRecord } from '../landing/landed-file.ts';
import { digestOfFile } from '../files/digest.ts';
import { parseJsonBytes, textOf, type ParsedJson } from '../files/json-text.ts';
import { sessionDataBeside, sessionDataName } from '../landing/layout.ts';
import { listSession, type LandedFileEntry, type SessionListing } from '../landing/session-state.ts';
import { firstLine, readLines, withOpenFile } from '../files/line-reader.ts';
import type { PartKind } from '../model/vocabulary.ts';
import { markRedactedParts } from './placeholder.ts';
import { SESSION_DATA_SCHEMA, type SessionDataHeader, type SessionDataRow } from './format.ts';

/** The adapter's half: one landed record in, one row out. It must not throw on bad input. */
export interface Converter {
  /**
   * The runtime and the generation of this converter's output, such as
   * claude-code/2. The generation counts every change of the rows the
   * converter makes from the same landed records, so that a `.sd` of an
   * earlier generation is known and derived again (deriveOutdatedSessionData).
   */
  readonly dialect: string;
  /**
   * `parsed` is the payload already parsed as JSON when the caller has done
   * that, so that no record is parsed twice. When its strings are bytes (ParsedJson), so must be every string of
   * the row: the row is then written as Latin-1.
   */
  convert(record: LandedRecord, header: LandedHeader, row: number, parsed?: ParsedJson): SessionDataRow;
}

export interface DerivationReport {
  readonly sessionData: string;
  readonly rows: number;
  readonly parts: Partial<Record<PartKind, number>>;
  /** Shapes the adapter could not describe, by its reason, with how often each occurred. */
  readonly unknownShapes: Map<string, number>;
  readonly droppedBytes: number;
}

/**
 * Derives `<landed>.sd` from a landed file. `landedDigest` is the landed
 * file's SHA-256 when the caller has it already (it was just written); it is
 * computed otherwise.
 */
export function deriveSessionData(landed: string, converter: Converter, landedDigest?: string): DerivationReport {
  const ofSha = landedDigest ?? digestOfFile(landed);
  let writer: SessionDataWriter | undefined;
  try {
    for (const entry of readLandedFile(landed)) {
      if (entry.type === 'header') writer = new SessionDataWriter(landed, entry.header, converter);
      else writer!.add(entry.record, entry.row);
    }
    if (!writer) throw new Error(`${landed}: the file has no header line`);
    // A derived file may be rebuilt; the rename replaces the old one whole.
    writer.seal(ofSha);
    writer.file.finish();
  } catch (error) {
    writer?.file.abandon();
    throw error;
  }
  return writer.report;
}

// The header's of_sha is the landed file's digest, known only once the
// landed file is complete. Collection derives the rows while it lands, so the
// header is written first with this stand-in of the same length and
// overwritten in place once the digest is known.
const DIGEST_NOT_YET_KNOWN = '0'.repeat(64);

/**
 * The `.sd` of one landed file as text, line by line: its header once the
 * landed file's digest is known, and a row for each landed record fed in
 * order. The one place a row is made, for the writer below and for
 * verification, which derives again without writing.
 */
export class SessionDataDerivation {
  readonly parts: Partial<Record<PartKind, number>> = {};
  readonly unknownShapes = new Map<string, number>();
  rows = 0;
  droppedBytes = 0;

  constructor(
    private readonly header: LandedHeader,
    private readonly converter: Converter,
    /** The landed file's name, which the header names. */
    private readonly landedName: string,
  ) {}

  headerLine(landedDigest: string): string {
    return `${JSON.stringify(sessionDataHeader(this.header, this.converter.dialect, this.landedName, landedDigest))}\n`;
  }

  /**
   * The row of one landed record at its row of the landed file, and its
   * line, with the encoding that writes it. `parsed` is its payload already
   * parsed as JSON, when the caller did that; when its strings are bytes, so
   * are the row's.
   */
  row(record: LandedRecord, row: number, parsed?: ParsedJson): { row: SessionDataRow; line: string; encoding: 'utf8' | 'latin1' } {
    const plain = this.converter.convert(record, this.header, row, parsed);
    const encoding = parsed?.stringsAsBytes ? 'latin1' : 'utf8';
    // The converter knows the runtime; what a redaction took out is known
    // here, from the landed line, whatever the runtime.
    const converted = record.redacted !== undefined ? markRedactedParts(plain) : plain;
    this.rows++;
    for (const part of converted.parts) {
      this.parts[part.k] = (this.parts[part.k] ?? 0) + 1;
      if (part.k === 'unknown') {
        const why = encoding === 'latin1' ? textOf(part.why) : part.why;
        this.unknownShapes.set(why, (this.unknownShapes.get(why) ?? 0) + 1);
      }
    }
    for (const drop of converted.dropped ?? []) this.droppedBytes += drop.bytes;
    // With strings of bytes, JSON.stringify and a Latin-1 write are cheaper
    // than copying a row's large pieces from the record's source bytes, found
    // by walking those bytes beside the parsed value.
    return { row: converted, line: `${JSON.stringify(converted)}\n`, encoding };
  }
}

/**
 * Writes the `.sd` of one landed file row by row, under a temporary name,
 * whether the records come from reading the landed file back or straight
 * from the collector that is landing them.
 */
export class SessionDataWriter {
  readonly file: PendingFile;
  private readonly derivation: SessionDataDerivation;

  /** `writer` lends the file its staging buffer and known folders. */
  constructor(landed: string, header: LandedHeader, converter: Converter, writer: Pick<PendingOptions, 'buffers' | 'folders'> = {}) {
    this.file = new PendingFile(sessionDataBeside(landed), { mode: READ_ONLY, durability: 'replaced', buffers: writer.buffers, folders: writer.folders });
    this.derivation = new SessionDataDerivation(header, converter, path.basename(landed));
    this.file.write(this.derivation.headerLine(DIGEST_NOT_YET_KNOWN));
  }

  /** One landed record, at its row of the landed file. `parsed` is its payload already parsed as JSON, when the caller did that. */
  add(record: LandedRecord, row: number, parsed?: ParsedJson): void {
    const { line, encoding } = this.derivation.row(record, row, parsed);
    this.file.write(line, encoding);
  }

  /** Puts the landed file's digest into the header; the file is then ready to be flushed and placed. */
  seal(landedDigest: string): void {
    this.file.rewriteStart(Buffer.from(this.derivation.headerLine(landedDigest), 'utf8'));
    this.file.seal();
  }

  get report(): DerivationReport {
    const { rows, parts, unknownShapes, droppedBytes } = this.derivation;
    return { sessionData: this.file.target, rows, parts, unknownShapes, droppedBytes };
  }
}

function sessionDataHeader(header: LandedHeader, dialect: string, of: string, ofSha: string): SessionDataHeader {
  const value: Record<string, unknown> = {
    h: 1,
    schema: SESSION_DATA_SCHEMA,
    dialect,
    seq: header.seq,
    session: header.session,
    stream: header.stream,
  };
  if (header.run !== undefined) value.run = header.run;
  value.kind = header.kind;
  value.of = of;
  value.of_sha = ofSha;
  if (header.derived !== undefined) value.derived = header.derived;
  return value as unknown as SessionDataHeader;
}

const NEWLINE = Buffer.from('\n');

export type SessionDataEntry =
  | { readonly type: 'header'; readonly header: SessionDataHeader }
  | {
      readonly type: 'row';
      readonly row: SessionDataRow;
      readonly stringsAsBytes: boolean;
      /** Where the row's line is in the file, without its newline: for a reader that reads it again rather than keep it. */
      readonly offset: number;
      readonly length: number;
    };

/**
 * Reads a `.sd` file: its header, then its rows. With `asBytes`, a row's
 * strings may be strings of bytes (ParsedJson), as its entry says: for a
 * reader that keeps a few of them and turns only those into text (textOf),
 * which parses several times faster than text for lines beyond ASCII. With
 * `hash`, every line read goes into it with its newline: the SHA-256 of the
 * bytes the entries come from, for a reader that must know them later. With
 * `rows`, only those rows are given: a line that starts with another row's
 * number, as the tool writes every row, is passed over without being parsed.
 */
export function* readSessionData(file: string, options: { asBytes?: boolean; hash?: crypto.Hash; rows?: ReadonlySet<number> } = {}): Generator<SessionDataEntry> {
  const descriptor = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(descriptor).size;
    let line = 0;
    for (const { bytes, offset } of readLines(descriptor, 0, size)) {
      line++;
      options.hash?.update(bytes).update(NEWLINE);
      if (options.rows && line > 1) {
        const row = leadingRow(bytes);
        if (row !== undefined && !options.rows.has(row)) continue;
      }
      let parsed: ParsedJson;
      try {
        parsed = options.asBytes && line > 1 ? parseJsonBytes(bytes) : { value: JSON.parse(bytes.toString('utf8')), stringsAsBytes: false };
      } catch {
        throw new Error(`${file}: line ${line}: not JSON`);
      }
      if (line === 1) {
        const header = sessionDataHeaderOf(parsed.value);
        if (header === undefined) throw new Error(`${file}: not a ${SESSION_DATA_SCHEMA} file`);
        yield { type: 'header', header };
      } else {
        yield { type: 'row', row: parsed.value as SessionDataRow, stringsAsBytes: parsed.stringsAsBytes, offset, length: bytes.length };
      }
    }
  } finally {
    fs.closeSync(descriptor);
  }
}

/** A `.sd`'s first line, parsed, as its header; undefined when it is not one. */
function sessionDataHeaderOf(value: unknown): SessionDataHeader | undefined {
  return (value as SessionDataHeader | null)?.schema === SESSION_DATA_SCHEMA ? (value as SessionDataHeader) : undefined;
}

const ROW_KEY = Buffer.from('{"row":');

/** The row number a `.sd` line starts with (`{"row":12,`), read from its bytes; undefined for a line that starts otherwise. */
function leadingRow(bytes: Buffer): number | undefined {
  if (bytes.compare(ROW_KEY, 0, ROW_KEY.length, 0, ROW_KEY.length) !== 0) return undefined;
  let row = 0;
  let at = ROW_KEY.length;
  for (; at < bytes.length && bytes[at]! >= 0x30 && bytes[at]! <= 0x39 && at < ROW_KEY.length + 15; at++) row = row * 10 + bytes[at]! - 0x30;
  return at > ROW_KEY.length && (bytes[at] === 0x2c /* , */ || bytes[at] === 0x7d) /* } */ ? row : undefined;
}

/** The landed files of a session that have no `.sd` beside them, in sequence order; from `listing` when the caller has one. */
export function landedFilesWithoutSessionData(data: string, session: string, listing: SessionListing = listSession(data, session)): LandedFileEntry[] {
  return listing.landed.filter((landed) => !listing.folders.get(path.posix.dirname(landed.relative))?.has(sessionDataName(path.basename(landed.path))));
}

/**
 * Derives the `.sd` of every landed file of a session that has none: one left
 * behind by an interrupted pass, or one deleted on purpose to rebuild it. A
 * landed file that cannot be read is reported, not fatal: the others are
 * still derived.
 */
export function deriveMissingSessionData(data: string, session: string, converter: Converter, listing?: SessionListing): { derived: number; failures: string[] } {
  return deriveAgain(landedFilesWithoutSessionData(data, session, listing).map((landed) => ({ landed, converter })));
}

/** A dialect's runtime and generation: claude-code/2 is generation 2 of claude-code. */
function generationOf(dialect: string): { runtime: string; generation: number } | undefined {
  const match = /^(.+)\/(\d+)$/.exec(dialect);
  return match ? { runtime: match[1]!, generation: Number(match[2]) } : undefined;
}

/**
 * The converter of `converters` whose output replaces a `.sd` of `dialect`:
 * the same runtime's, of a later generation. Undefined for a `.sd` that is
 * current, of a runtime none of them converts, or of a later generation than
 * theirs (written by a newer build, which this one leaves alone).
 */
export function newerConverterFor(dialect: string, converters: readonly Converter[]): Converter | undefined {
  const found = generationOf(dialect);
  if (!found) return undefined;
  return converters.find((converter) => {
    const own = generationOf(converter.dialect);
    return own !== undefined && own.runtime === found.runtime && own.generation > found.generation;
  });
}

/** The header of a `.sd`, its first line alone; undefined when the file is not one. */
export function readSessionDataHeader(file: string): SessionDataHeader | undefined {
  try {
    // The first line alone: a reading buffer for the rows would be read whole, up to a megabyte of a `.sd`, for every landed file a parse weighs.
    const first = withOpenFile(file, (descriptor) => firstLine(descriptor, fs.fstatSync(descriptor).size));
    if (first === undefined) return undefined;
    return sessionDataHeaderOf(JSON.parse(first.toString('utf8')));
  } catch {
    // Not a .sd: whatever reads it whole reports it.
  }
  return undefined;
}

/**
 * The landed files whose `.sd` was written by an earlier generation of one
 * of `converters`, each with the converter that derives it again. Reads the
 * first line of each `.sd`; a landed file without one is left to
 * deriveMissingSessionData.
 */
export function outdatedSessionData(landed: readonly LandedFileEntry[], converters: readonly Converter[]): { landed: LandedFileEntry; converter: Converter }[] {
  const outdated: { landed: LandedFileEntry; converter: Converter }[] = [];
  for (const file of landed) {
    const header = readSessionDataHeader(sessionDataBeside(file.path));
    const converter = header === undefined ? undefined : newerConverterFor(header.dialect, converters);
    if (converter) outdated.push({ landed: file, converter });
  }
  return outdated;
}

/**
 * Derives the `.sd` of each landed file, with its converter, replaced whole
 * by a rename where there is one: the `.sd` is the tool's own derived file,
 * and its landed file is not touched. Returns how many were derived, and the
 * landed files that could not be read (a `.sd` already there stays as it
 * was, still readable).
 */
export function deriveAgain(outdated: readonly { landed: LandedFileEntry; converter: Converter }[]): { derived: number; failures: string[] } {
  let derived = 0;
  const failures: string[] = [];
  for (const { landed, converter } of outdated) {
    try {
      deriveSessionData(landed.path, converter);
      derived++;
    } catch (error) {
      failures.push((error as Error).message);
    }
  }
  return { derived, failures };
}
