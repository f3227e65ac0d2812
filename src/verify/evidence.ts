// The checks of a storage zone's evidence, fed as bytes: the landed files and
// their `.sd`, whether they are read from a folder or stream past inside an
// archive. Nothing here opens a file, so an export folder, a storage root and
// a `.tar.zst` read as one stream share every check, and in any order: a
// `.sd` may arrive before its landed file (GNU tar packs in directory order).
//
// Each file is fed chunk by chunk and reduced to a summary as it passes;
// what needs both halves (a `.sd` against its landed file) is decided in
// `finish`, once every file has been seen. With `deep`, each landed file's
// `.sd` is derived again as its records pass, never written: a digest per
// row is kept, so a difference is named by its line, and the identifiers
// assembly needs, so that each conversation can be assembled again from the
// landed evidence alone.

import crypto from 'node:crypto';
import { indexEntryOf, type IndexEntry, type SessionIndex } from '../index/session-index.ts';
import { LandedFormatError, parseHeaderLine, parseRecordLine, type LandedHeader } from '../landing/landed-file.ts';
import { digestOf } from '../files/digest.ts';
import { parseLandedName, RUNS, sessionDataName, STREAMS } from '../landing/layout.ts';
import { newerConverterFor, SessionDataDerivation, type Converter } from '../session-data/derive.ts';
import { SESSION_DATA_SCHEMA, type SessionDataHeader } from '../session-data/format.ts';
import type { LandedDigest } from '../session-flow/chain.ts';
import { LONGEST_LINE, pastBound, PARSED_ENTRY_BYTES } from './bounds.ts';
import type { Problem } from './storage.ts';

export interface EvidenceOptions {
  readonly deep?: boolean;
  /** The converters this build has, for `deep`: a `.sd` is derived again with the one its header names. */
  readonly converters?: readonly Converter[];
}

/** Takes a file's bytes in order, then its end. */
export interface ChunkSink {
  push(chunk: Buffer): void;
  end(): void;
}

const NEWLINE = 0x0a;

/**
 * Cuts chunks into lines, each with its newline, with memory bounded by the
 * longest line. A line is valid only during the call: copy to keep. A line
 * longer than `longest` is told to `onTooLong`, and nothing after it is cut.
 */
export class LineSplitter {
  private carried: Buffer[] = [];
  private carriedBytes = 0;
  private stopped = false;

  constructor(
    private readonly onLine: (line: Buffer) => void,
    private readonly onTooLong: () => void = () => {},
    private readonly longest = LONGEST_LINE,
  ) {}

  push(chunk: Buffer): void {
    if (this.stopped) return;
    let cursor = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, cursor);
      if (this.carriedBytes + (newline < 0 ? chunk.length : newline + 1) - cursor > this.longest) {
        this.stopped = true;
        this.carried = [];
        this.carriedBytes = 0;
        this.onTooLong();
        return;
      }
      if (newline < 0) {
        if (cursor < chunk.length) {
          // Copied: the caller may reuse the chunk's memory.
          this.carried.push(Buffer.from(chunk.subarray(cursor)));
          this.carriedBytes += chunk.length - cursor;
        }
        return;
      }
      let line = chunk.subarray(cursor, newline + 1);
      if (this.carriedBytes > 0) {
        line = Buffer.concat([...this.carried, line], this.carriedBytes + line.length);
        this.carried = [];
        this.carriedBytes = 0;
      }
      this.onLine(line);
      cursor = newline + 1;
    }
  }

  /** Bytes after the last newline: a file cut short. */
  get trailingBytes(): number {
    return this.carriedBytes;
  }
}

/** SHA-256 of each line, in one growing buffer: 32 bytes a row, so that a long session's rows cost little to keep. */
class LineDigests {
  private bytes = Buffer.alloc(32 * 64);
  count = 0;

  /** `encoding` is how a string line is written to its file (SessionDataDerivation.row). */
  add(line: string | Buffer, encoding: 'utf8' | 'latin1' = 'utf8'): void {
    if ((this.count + 1) * 32 > this.bytes.length) {
      const larger = Buffer.alloc(this.bytes.length * 2);
      this.bytes.copy(larger);
      this.bytes = larger;
    }
    const hash = crypto.createHash('sha256');
    if (typeof line === 'string') hash.update(line, encoding);
    else hash.update(line);
    hash.digest().copy(this.bytes, this.count * 32);
    this.count++;
  }

  at(position: number): string | undefined {
    return position < this.count ? this.bytes.subarray(position * 32, position * 32 + 32).toString('hex') : undefined;
  }
}

/** A `.sd` derived again from the landed records as they pass. */
interface Derived {
  readonly derivation: SessionDataDerivation;
  readonly rows: LineDigests;
  readonly entries: IndexEntry[];
  headerLine?: string;
}

interface LandedSummary {
  readonly relative: string;
  readonly session: string;
  readonly seq: number;
  header?: LandedHeader;
  digest?: string;
  records: number;
  /** Unreadable: its format problem is reported, and its `.sd` is not compared. */
  broken: boolean;
  /** By dialect: one derivation per converter that could apply, until the `.sd` says which. */
  readonly derived: Map<string, Derived>;
}

interface SessionDataSummary {
  readonly relative: string;
  header?: SessionDataHeader;
  headerLine?: string;
  rows: number;
  broken: boolean;
  readonly lines: LineDigests;
}

/** Where a file sits in a storage zone, from its path inside it: `<session>/streams|runs/<place>/<name>`. */
function evidencePlace(relative: string): { session: string; group: string; place: string; name: string } | undefined {
  const parts = relative.split('/');
  if (parts.length !== 4 || (parts[1] !== STREAMS && parts[1] !== RUNS) || parts[0]!.startsWith('_')) return undefined;
  return { session: parts[0]!, group: parts[1], place: parts[2]!, name: parts[3]! };
}

export interface EvidenceSummary {
  readonly sessions: number;
  readonly landedFiles: number;
  readonly records: number;
  readonly problems: Problem[];
  /** Things worth knowing that are not damage: a session whose `.sd` an earlier converter wrote. */
  readonly notes: Problem[];
  /** With `deep`: each session's index, made from its `.sd` derived again, for assembling again. */
  readonly indexes: Map<string, SessionIndex>;
  /** Each session's landed files as found, by sequence, for the input digests of its rounds. */
  readonly landed: Map<string, LandedDigest[]>;
}

export class EvidenceCheck {
  private readonly landed = new Map<string, LandedSummary>();
  private readonly sessionData = new Map<string, SessionDataSummary>();
  private readonly problems: Problem[] = [];
  /** By session: how many of its `.sd` an earlier converter wrote, the dialects they name, and this build's. */
  private readonly outdated = new Map<string, { count: number; dialects: Set<string>; current: string }>();

  constructor(private readonly options: EvidenceOptions = {}) {}

  private problem(path: string, what: string): void {
    this.problems.push({ path, what });
  }

  /** A line past LONGEST_LINE after line `before`: the file is reported and read no further. */
  private tooLong(summary: { broken: boolean }, relative: string, before: number): void {
    if (!summary.broken) this.problem(relative, `line ${before + 1} is longer than ${LONGEST_LINE} bytes, the longest line verify reads; the rest of the file was not read`);
    summary.broken = true;
  }

  /** A landed file or `.sd` at `relative` of `size` bytes, past PARSED_ENTRY_BYTES: reported, and taken as unreadable with none of it read. */
  tooLarge(relative: string, size: number): void {
    const sink = this.file(relative);
    this.problem(relative, `${pastBound(size, PARSED_ENTRY_BYTES, 'a landed file or .sd')}; it was not read`);
    (this.landed.get(relative) ?? this.sessionData.get(relative))!.broken = true;
    sink.end();
  }

  /** Whether a path inside the zone is a landed file or a `.sd`, the two kinds this checks. */
  static holds(relative: string): boolean {
    const place = evidencePlace(relative);
    if (!place) return false;
    return parseLandedName(place.name) !== undefined || (place.name.endsWith('.sd') && parseLandedName(place.name.replace(/\.sd$/, '.jsonl')) !== undefined);
  }

  /** The sink for one file at `relative` inside the zone, one of those `holds` accepts. */
  file(relative: string): ChunkSink {
    return relative.endsWith('.sd') ? this.sessionDataFile(relative) : this.landedFile(relative);
  }

  private landedFile(relative: string): ChunkSink {
    const place = evidencePlace(relative)!;
    const seq = parseLandedName(place.name)!.seq;
    const summary: LandedSummary = { relative, session: place.session, seq, records: 0, broken: false, derived: new Map() };
    this.landed.set(relative, summary);
    const hash = crypto.createHash('sha256');
    let line = 0;
    const splitter = new LineSplitter((bytes) => {
      line++;
      if (summary.broken) return;
      const content = bytes.subarray(0, bytes.length - 1);
      try {
        if (line === 1) {
          const header = parseHeaderLine(content);
          summary.header = header;
          if (header.seq !== seq) this.problem(relative, `the header says sequence ${header.seq}, the name says ${seq}`);
          if (header.session !== place.session) this.problem(relative, `the header names session ${header.session}, but the file is in ${place.session}`);
          const placed = place.group === STREAMS ? header.stream : header.run;
          if (placed !== place.place) this.problem(relative, `the header names ${place.group === STREAMS ? 'stream' : 'run'} ${placed}, but the file is in ${place.group}/${place.place}`);
          if (this.options.deep) {
            const named = this.sessionData.get(sessionDataPath(relative))?.header?.dialect;
            // The `.sd` names its dialect; when it has not been read yet, every
            // converter this build has derives, and the `.sd` picks later.
            // A `.sd` of an earlier generation is derived with this build's
            // converter all the same: its rows make the index that each
            // conversation is assembled again from, as the next parse would.
            for (const converter of this.options.converters ?? []) {
              if (named !== undefined && converter.dialect !== named && newerConverterFor(named, [converter]) === undefined) continue;
              summary.derived.set(converter.dialect, { derivation: new SessionDataDerivation(header, converter, place.name), rows: new LineDigests(), entries: [] });
            }
          }
          return;
        }
        const record = parseRecordLine(content);
        summary.records++;
        const found = digestOf(record.payload);
        if (found !== record.sha) this.problem(relative, `record ${summary.records} (source line ${record.ord}): its bytes do not match its digest (expected sha ${record.sha}, found ${found})`);
        for (const derived of summary.derived.values()) {
          const { row, line: text, encoding } = derived.derivation.row(record, summary.records);
          derived.rows.add(text, encoding);
          derived.entries.push(indexEntryOf(seq, `${place.group}/${place.place}`, summary.header!.kind, row));
        }
      } catch (error) {
        if (!(error instanceof LandedFormatError)) throw error;
        this.problem(relative, `line ${line}: ${error.message}`);
        summary.broken = true;
      }
    }, () => this.tooLong(summary, relative, line));
    return {
      push: (chunk) => {
        hash.update(chunk);
        splitter.push(chunk);
      },
      end: () => {
        summary.digest = hash.digest('hex');
        if (summary.broken) return;
        if (line === 0) {
          this.problem(relative, 'the file has no header line');
          summary.broken = true;
        } else if (splitter.trailingBytes > 0) {
          this.problem(relative, `${splitter.trailingBytes} bytes after the last newline; the file is cut short`);
          summary.broken = true;
        }
        for (const derived of summary.derived.values()) derived.headerLine = derived.derivation.headerLine(summary.digest);
      },
    };
  }

  private sessionDataFile(relative: string): ChunkSink {
    const summary: SessionDataSummary = { relative, rows: 0, broken: false, lines: new LineDigests() };
    this.sessionData.set(relative, summary);
    let line = 0;
    const splitter = new LineSplitter((bytes) => {
      line++;
      if (summary.broken) return;
      if (line === 1) {
        summary.headerLine = bytes.toString('utf8');
        let header: SessionDataHeader | undefined;
        try {
          header = JSON.parse(summary.headerLine) as SessionDataHeader;
        } catch {
          // Reported below, as a .sd that is not one.
        }
        if (header?.schema !== SESSION_DATA_SCHEMA) {
          this.problem(relative, `not a ${SESSION_DATA_SCHEMA} file`);
          summary.broken = true;
          return;
        }
        summary.header = header;
        return;
      }
      summary.rows++;
      if (this.options.deep) {
        // Compared line by line with the rows derived again, which numbers
        // them and proves them JSON, so the rows need not be parsed here.
        summary.lines.add(bytes);
        return;
      }
      let row: { row?: unknown };
      try {
        row = JSON.parse(bytes.toString('utf8')) as { row?: unknown };
      } catch {
        this.problem(relative, `line ${line}: not JSON`);
        summary.broken = true;
        return;
      }
      if (row.row !== summary.rows) this.problem(relative, `row ${summary.rows} is numbered ${String(row.row)}`);
    }, () => this.tooLong(summary, relative, line));
    return {
      push: (chunk) => splitter.push(chunk),
      end: () => {
        if (summary.broken) return;
        if (line === 0) {
          this.problem(relative, `not a ${SESSION_DATA_SCHEMA} file: it is empty`);
          summary.broken = true;
        } else if (splitter.trailingBytes > 0) {
          this.problem(relative, `${splitter.trailingBytes} bytes after the last newline; the file is cut short`);
          summary.broken = true;
        }
      },
    };
  }

  /**
   * Every check that needs more than one file: each landed file against its
   * `.sd`, and each session's sequence numbers, 1..N with no gap and no repeat
   * across all its streams. Returns every problem found since the start, and
   * with `deep` each session's index, made from the rows derived again.
   */
  finish(): EvidenceSummary {
    const bySession = new Map<string, LandedSummary[]>();
    let records = 0;
    for (const landed of this.landed.values()) {
      records += landed.records;
      bySession.set(landed.session, [...(bySession.get(landed.session) ?? []), landed]);
      this.compareSessionData(landed);
    }
    for (const [relative] of this.sessionData) if (!this.landed.has(relative.replace(/\.sd$/, '.jsonl'))) this.problem(relative, 'a .sd without its landed file');
    const indexes = new Map<string, SessionIndex>();
    const landed = new Map<string, LandedDigest[]>();
    for (const [session, files] of bySession) {
      files.sort((a, b) => a.seq - b.seq || (a.relative < b.relative ? -1 : 1));
      landed.set(session, files.map((file) => ({ seq: file.seq, digest: file.digest ?? '' })));
      // One counter across all the session's streams: 1, 2, … N, each once.
      const seen = new Map<number, string>();
      for (const file of files) {
        const earlier = seen.get(file.seq);
        if (earlier !== undefined) this.problem(file.relative, `sequence ${file.seq} is used twice (also by ${earlier.slice(session.length + 1)})`);
        else seen.set(file.seq, file.relative);
      }
      const highest = files.at(-1)!.seq;
      for (let seq = 1; seq <= highest; seq++) {
        if (!seen.has(seq)) this.problem(`${session}/`, `sequence ${seq} is missing: no landed file has it (expected 1 to ${highest} with no gap)`);
      }
      if (this.options.deep) {
        const chosen = files.map((file) => ({ file, derived: this.chosenDerivation(file) }));
        indexes.set(session, {
          session,
          throughSeq: highest,
          files: chosen.map(({ file }) => ({ seq: file.seq, digest: file.digest ?? '' })),
          entries: chosen.flatMap(({ derived }) => derived?.entries ?? []),
        });
      }
    }
    const notes = [...this.outdated].map(([session, { count, dialects, current }]) => ({
      path: `${session}/`,
      what: `${count} of its .sd were written by an older converter (${[...dialects].sort().join(', ')}; this build writes ${current}), so they are not derived again to compare; the next parse or export of the data folder derives them again`,
    }));
    return { sessions: bySession.size, landedFiles: this.landed.size, records, problems: this.problems, notes, indexes, landed };
  }

  private chosenDerivation(landed: LandedSummary): Derived | undefined {
    const dialect = this.sessionData.get(sessionDataPath(landed.relative))?.header?.dialect;
    if (dialect === undefined) return undefined;
    const newer = newerConverterFor(dialect, this.options.converters ?? []);
    return landed.derived.get(newer?.dialect ?? dialect);
  }

  private compareSessionData(landed: LandedSummary): void {
    const relative = sessionDataPath(landed.relative);
    const sessionData = this.sessionData.get(relative);
    const name = relative.split('/').at(-1)!;
    if (!sessionData) {
      this.problem(landed.relative, `its .sd is missing (expected ${name}); the next collect derives it`);
      return;
    }
    if (landed.broken || sessionData.broken || !sessionData.header) return;
    const header = sessionData.header;
    const landedName = landed.relative.split('/').at(-1)!;
    if (header.of !== landedName) this.problem(relative, `its header names ${header.of}, not ${landedName}`);
    if (header.of_sha !== landed.digest) this.problem(relative, `it was derived from other bytes than its landed file's (expected of_sha ${landed.digest}, found ${header.of_sha})`);
    if (sessionData.rows !== landed.records) this.problem(relative, `it has ${sessionData.rows} rows for ${landed.records} landed records (expected one row per record)`);
    // Written by an earlier generation of a converter this build has: this
    // build cannot derive what that one did, and parse derives it again with
    // its own (parse.ts). A note, once for the session: the `.sd` is the
    // tool's own derived file, and an export is made from `.sd` derived again.
    const newer = newerConverterFor(header.dialect, this.options.converters ?? []);
    if (newer) {
      const seen = this.outdated.get(landed.session) ?? { count: 0, dialects: new Set<string>(), current: newer.dialect };
      seen.count++;
      seen.dialects.add(header.dialect);
      this.outdated.set(landed.session, seen);
      return;
    }
    if (!this.options.deep) return;
    const derived = landed.derived.get(header.dialect);
    if (!derived) {
      this.problem(relative, `no converter for dialect ${header.dialect}, so it cannot be derived again`);
      return;
    }
    if (derived.headerLine !== sessionData.headerLine) {
      this.problem(relative, `deriving it again from its landed file gives different bytes, first on line 1, its header (expected ${derived.headerLine!.trimEnd()}, found ${sessionData.headerLine!.trimEnd()})`);
      return;
    }
    const lines = Math.max(derived.rows.count, sessionData.lines.count);
    for (let position = 0; position < lines; position++) {
      const expected = derived.rows.at(position);
      const found = sessionData.lines.at(position);
      if (expected === found) continue;
      const line = (digest: string | undefined): string => (digest === undefined ? 'no more rows' : `a line with sha256 ${digest}`);
      this.problem(relative, `deriving it again from its landed file gives different bytes, first on line ${position + 2}, row ${position + 1} (expected ${line(expected)}, found ${line(found)})`);
      return;
    }
  }
}

function sessionDataPath(landed: string): string {
  const slash = landed.lastIndexOf('/');
  return `${landed.slice(0, slash + 1)}${sessionDataName(landed.slice(slash + 1))}`;
}
