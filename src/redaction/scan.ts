// Finding the secrets of the conversations an export will hold, in the
// storage zone, reading only: the result is a plan that says, for each file,
// record and string, which pieces to remove and by which rule, and the
// findings a person reads. `export --redact --dry-run` prints the findings;
// `export --redact` applies the plan to the copied bundle (apply.ts).
//
// Every string of every record is scanned, whatever part of the record it is
// (prompts, answers, tool inputs and outputs, attachments, child streams,
// workflow journals and scripts), and so are the landed headers and the
// branch and label records. The strings of one landed file are scanned
// together, as one text, because the rule engine costs per call as much as
// per byte: one call a file runs at its full speed.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { headerLine, readLandedFile, type LandedHeader, type LandedRecord } from '../landing/landed-file.ts';
import { RUNS, sessionDataBeside } from '../landing/layout.ts';
import { landedFilesOfSession, type LandedFileEntry } from '../landing/session-state.ts';
import { placeholder } from '../session-data/placeholder.ts';
import { listFolder } from '../files/folders.ts';
import type { Converter } from '../session-data/derive.ts';
import { readSessionData } from '../session-data/derive.ts';
import type { Part } from '../session-data/format.ts';
import { rowsWithMedia } from '../session-data/media-rows.ts';
import { MEDIA_LEFT_OUT } from '../session-data/placeholder.ts';
import { conversationFolder } from '../session-flow/chain.ts';
import { decodeJsonString, jsonStrings, jsonStringTexts } from './json-strings.ts';
import { isSecretField, isSecretValue, SECRET_FIELD_RULE } from './fields.ts';
import { findSecrets, type RuleSet, type Span } from './rules.ts';

/** One secret found: where, by which rule, and a preview that does not give it away. */
export interface Finding {
  readonly conversation: string;
  /** Path inside the bundle, with forward slashes. */
  readonly file: string;
  /** Row of the record in its landed file; 0 for a landed header or a branch or label record. */
  readonly row: number;
  /** The record's id, when it has one. */
  readonly record?: string;
  /** Which part of the record: `part N (kind)` of its `.sd` row, or `record` for a field outside the parts, or `header`. */
  readonly part: string;
  readonly rule: string;
  readonly preview: string;
  /** Size of the secret in bytes (UTF-8). */
  readonly bytes: number;
}

/** The pieces to remove from one string of a file: the string's index among the file's (or record's) strings, and spans in its decoded text. */
export type StringCuts = Map<number, Span[]>;

export interface FilePlan {
  /** A landed file (its header is row 0), or a branch or label record (one JSON document, row 0). */
  readonly kind: 'landed' | 'record';
  readonly conversation: string;
  /**
   * Where the redacted copy of a landed file goes in the bundle, when the id
   * of its stream or run holds a secret: the folder its redacted header
   * names, so that the id is in no path and the folder still matches it.
   */
  readonly to?: string;
  /** The `.sd` dialect to derive the redacted copy's `.sd` with. */
  readonly dialect?: string;
  readonly rows: Map<number, StringCuts>;
}

export interface RedactionPlan {
  readonly rules: string[];
  readonly paths: boolean;
  /** By path inside the bundle. */
  readonly files: Map<string, FilePlan>;
  readonly findings: Finding[];
  readonly converterFor: (dialect: string) => Converter | undefined;
}

export interface ScanOptions {
  readonly rules: RuleSet;
  /** Mask home folders and user names too. */
  readonly paths?: boolean;
  /** Keep the data of images and documents; without it, each is left out whole (mediaOfFile). */
  readonly keepImages?: boolean;
  readonly converterFor: (dialect: string) => Converter | undefined;
}

/** One string of a file: its record's row, its index among the record's strings, its text. */
export interface Piece {
  readonly row: number;
  readonly index: number;
  readonly text: string;
  /** The rule that makes the whole string a secret, whatever its text. */
  readonly whole?: string;
  /** For the data of a medium left out whole: the size of the medium's bytes, which its placeholder states; the string is not scanned. */
  readonly bytes?: number;
}

/**
 * The data of a medium (an image, a document) of a record, as its `.sd`
 * part holds it: known by its length and its digest, so that what is held
 * of a file's media while its strings are scanned stays small.
 */
export interface MediumData {
  readonly length: number;
  readonly sha256: string;
  /** MEDIA_LEFT_OUT's rule for it. */
  readonly rule: string;
  /** The size of the medium's bytes: its part's `bytes`. */
  readonly bytes: number;
}

/** What the report's rules say of media left out whole. */
export const MEDIA_LEFT_OUT_SOURCE = 'images and documents: left out whole, as no rule can read them (--keep-images keeps them)';

// Strings are joined with a blank line between them, so a rule anchored on
// lines sees each string's lines as they are.
const SEPARATOR = '\n\n';

// Characters scanned in one call of the rule engine. Batches bound memory by
// the batch rather than the file, in about the time whole files take.
const BATCH = 4_000_000;

export async function scanForSecrets(data: string, conversations: readonly string[], options: ScanOptions): Promise<RedactionPlan> {
  const userNames = options.paths ? userNamesIn(data, conversations) : [];
  const userRule = userNames.length > 0 ? userNamePattern(userNames) : undefined;
  const rules = userRule ? { ...options.rules, patterns: [...options.rules.patterns, userRule] } : options.rules;
  const files = new Map<string, FilePlan>();
  const findings: Finding[] = [];
  for (const conversation of conversations) {
    const session = conversation;
    for (const landed of landedFilesOfSession(data, session)) {
      const media = options.keepImages ? undefined : mediaOfFile(sessionDataBeside(landed.path));
      // Scanned in batches of about BATCH characters, whatever the file's size.
      const found: [Piece, Span[]][] = [];
      let batch: Piece[] = [];
      let characters = 0;
      let header: LandedHeader | undefined;
      const flush = async (): Promise<void> => {
        found.push(...(await cutsOf(batch, rules)));
        batch = [];
        characters = 0;
      };
      for (const entry of readLandedFile(landed.path)) {
        const before = batch.length;
        if (entry.type === 'header') {
          header = entry.header;
          collectStrings(Buffer.from(headerLine(entry.header)), 'raw', 0, batch);
        } else collectStrings(entry.record.payload, entry.record.encoding, entry.row, batch, undefined, media?.get(entry.row));
        for (let index = before; index < batch.length; index++) characters += batch[index]!.text.length;
        if (characters >= BATCH) await flush();
      }
      await flush();
      if (found.length === 0) continue;
      found.sort(([a], [b]) => a.row - b.row || a.index - b.index);
      const sessionData = sessionDataBeside(landed.path);
      const described = describeRows(sessionData, new Set(found.map(([piece]) => piece.row)));
      const rows = cutsByRow(found);
      const moved = header ? redactedRelative(landed, header, rows.get(0)) : landed.relative;
      const to = moved !== landed.relative ? `${session}/${moved}` : undefined;
      files.set(`${session}/${landed.relative}`, { kind: 'landed', conversation, dialect: described.dialect, rows, ...(to !== undefined ? { to } : {}) });
      // The report names the file where the bundle holds it.
      const file = to ?? `${session}/${landed.relative}`;
      for (const [piece, spans] of found) {
        const parts = described.rows.get(piece.row);
        for (const span of spans) {
          const secret = piece.text.slice(span.start, span.end);
          findings.push({ conversation, file, row: piece.row, ...(parts?.id !== undefined ? { record: parts.id } : {}), part: piece.row === 0 ? 'header' : partOf(parts?.parts ?? [], secret, piece.bytes !== undefined), rule: span.rule, preview: preview(secret), bytes: Buffer.byteLength(secret) });
        }
      }
    }
    for (const relative of recordFiles(data, conversation)) {
      const bytes = fs.readFileSync(path.join(conversationFolder(data, conversation), relative));
      const pieces: Piece[] = [];
      collectStrings(bytes, 'raw', 0, pieces, new Set(userNames));
      const found = (await cutsOf(pieces, rules)).sort(([a], [b]) => a.index - b.index);
      if (found.length === 0) continue;
      const file = `_conversations/${conversation}/${relative}`;
      files.set(file, { kind: 'record', conversation, rows: cutsByRow(found) });
      for (const [piece, spans] of found) {
        for (const span of spans) {
          const secret = piece.text.slice(span.start, span.end);
          findings.push({ conversation, file, row: 0, part: 'record', rule: span.rule, preview: preview(secret), bytes: Buffer.byteLength(secret) });
        }
      }
    }
  }
  return { rules: options.keepImages ? rules.sources : [...rules.sources, MEDIA_LEFT_OUT_SOURCE], paths: options.paths === true, files, findings, converterFor: options.converterFor };
}

/** A text with its spans replaced by placeholders. */
export function cut(text: string, spans: readonly Span[]): string {
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + placeholder(span.rule, span.bytes ?? Buffer.byteLength(text.slice(span.start, span.end)));
    at = span.end;
  }
  return out + text.slice(at);
}

/**
 * A landed file's path inside its session folder, once redacted: a stream or
 * run folder is named by its id, which the transcript chose (a child agent's
 * id, a workflow run's), so when the header's id loses a secret the file
 * goes to the folder its redacted id names.
 */
function redactedRelative(landed: LandedFileEntry, header: LandedHeader, cuts: StringCuts | undefined): string {
  if (!cuts) return landed.relative;
  const [group] = landed.place.split('/');
  const field = group === RUNS ? 'run' : 'stream';
  const bytes = Buffer.from(headerLine(header));
  const tokens = jsonStrings(bytes);
  const key = tokens.findIndex((token) => token.key && decodeJsonString(bytes, token) === field);
  // The id is the string after its key; a stream of null has none.
  const id = key >= 0 && tokens[key + 1]?.key === false ? key + 1 : undefined;
  const spans = id !== undefined ? cuts.get(id) : undefined;
  if (id === undefined || !spans) return landed.relative;
  return `${group}/${cut(decodeJsonString(bytes, tokens[id]!), spans)}/${path.posix.basename(landed.relative)}`;
}

function cutsByRow(found: readonly [Piece, Span[]][]): Map<number, StringCuts> {
  const rows = new Map<number, StringCuts>();
  for (const [piece, spans] of found) {
    if (!rows.has(piece.row)) rows.set(piece.row, new Map());
    rows.get(piece.row)!.set(piece.index, spans);
  }
  return rows;
}

/** The branch and label records of a conversation, relative to its folder. */
export function recordFiles(data: string, conversation: string): string[] {
  const folder = conversationFolder(data, conversation);
  const found = listFolder(path.join(folder, 'branches')).map((name) => `branches/${name}`);
  for (const branch of listFolder(path.join(folder, 'labels'))) found.push(...listFolder(path.join(folder, 'labels', branch)).map((name) => `labels/${branch}/${name}`));
  return found.sort();
}

/**
 * The strings of one record, in the order apply.ts finds them again. A JSON
 * payload gives each string, keys included (a key can be a secret: an access
 * key id as the name of its entry), with a value under a key that names a
 * secret (`"password": …`) marked whole; a payload landed as text is one
 * string; bytes that are not UTF-8 are read one character a byte, so a secret
 * in them is still found and replaced in place. `exact` names strings that
 * are a secret when they are all of a string (a user name as the actor of a
 * branch record); `media`, the data of the record's media, which are left
 * out whole.
 */
export function collectStrings(payload: Buffer, encoding: LandedRecord['encoding'], row: number, pieces: Piece[], exact?: ReadonlySet<string>, media?: readonly MediumData[]): void {
  if (encoding !== 'raw') {
    pieces.push({ row, index: 0, text: payload.toString(encoding === 'utf8' ? 'utf8' : 'latin1') });
    return;
  }
  let keyName: string | undefined;
  jsonStringTexts(payload).forEach((token, index) => {
    const text = token.text;
    const under = keyName;
    keyName = token.key ? text : undefined;
    const medium = !token.key && media !== undefined ? mediumOf(text, media) : undefined;
    const whole = !token.key && under !== undefined && isSecretField(under) && isSecretValue(text) ? SECRET_FIELD_RULE : !token.key && exact?.has(text) ? 'user-name' : undefined;
    if (medium) pieces.push({ row, index, text, whole: medium.rule, bytes: medium.bytes });
    else if (whole) pieces.push({ row, index, text, whole });
    // No rule finds a secret in fewer characters, nor in a name made of
    // letters only; most strings of a record are such names and kinds, which
    // need not be copied into the text.
    else if (text.length >= SHORTEST && !(token.key && FIELD_NAME.test(text))) pieces.push({ row, index, text });
  });
}

// The shortest text a rule can find a secret in: `-p` and a 3-character password.
const SHORTEST = 5;

// A key that names a field: a word of letters starting with a small letter or
// a capital and a small one (camelCase, snake_case, PascalCase), short enough
// to be a name rather than a token. An access key id is capitals and digits.
const FIELD_NAME = /^(?:[a-z_]|[A-Z][a-z])[A-Za-z_]{0,31}$/;

/** The medium of `media` whose data `text` is, if any: the same length first, then the same digest. */
function mediumOf(text: string, media: readonly MediumData[]): MediumData | undefined {
  const candidates = media.filter((medium) => medium.length === text.length);
  if (candidates.length === 0) return undefined;
  const sha256 = crypto.createHash('sha256').update(text).digest('hex');
  return candidates.find((medium) => medium.sha256 === sha256);
}

/**
 * The data of the media of each row of a landed file, by row, from its
 * `.sd`: the parts say which strings of a record are a medium's data, in the
 * model's words, so no runtime's field names are read here. Only the lines
 * that hold a medium are parsed.
 */
export function mediaOfFile(sessionData: string): Map<number, MediumData[]> {
  const byRow = new Map<number, MediumData[]>();
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(sessionData);
  } catch (error) {
    throw new Error(`${sessionData}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}), so the images of its landed file cannot be left out of the redacted export; give --keep-images to keep them, or collect again to derive it`);
  }
  for (const row of rowsWithMedia(bytes, (start) => new Error(`${sessionData}: the line at byte ${start} is not JSON, so the images of its landed file cannot be told apart; collect again to derive it`))) {
    for (const part of row.parts ?? []) {
      if (part.k !== 'media' || typeof part.data !== 'string') continue;
      const rule = part.media_type.toLowerCase().startsWith('image/') ? MEDIA_LEFT_OUT.image : MEDIA_LEFT_OUT.document;
      const media = byRow.get(row.row) ?? [];
      media.push({ length: part.data.length, sha256: crypto.createHash('sha256').update(part.data).digest('hex'), rule, bytes: part.bytes });
      byRow.set(row.row, media);
    }
  }
  return byRow;
}

/** Scans the pieces as one text; gives each piece with something to cut, and its spans, merged and in order. */
async function cutsOf(every: Piece[], rules: RuleSet): Promise<[Piece, Span[]][]> {
  const byPiece = new Map<Piece, Span[]>();
  for (const piece of every) if (piece.whole) byPiece.set(piece, [{ start: 0, end: piece.text.length, rule: piece.whole, ...(piece.bytes !== undefined ? { bytes: piece.bytes } : {}) }]);
  // A medium's data goes whole, and is not read: base64 of pixels holds no text.
  const pieces = every.filter((piece) => piece.bytes === undefined);
  // Offsets are kept apart from the pieces: on the shared corpus, building
  // the joined text and its offsets costs about a fifth of the scan (most of
  // the rest is secretlint), and a copy of each piece only added to it.
  const starts = new Array<number>(pieces.length);
  const texts = new Array<string>(pieces.length);
  let at = 0;
  pieces.forEach((piece, index) => {
    starts[index] = at;
    texts[index] = piece.text;
    at += piece.text.length + SEPARATOR.length;
  });
  const text = texts.join(SEPARATOR);
  for (const span of await findSecrets(text, rules)) {
    // The pieces the span touches; a span across two strings is cut from each.
    let low = 0;
    let high = pieces.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= span.start) low = middle;
      else high = middle - 1;
    }
    for (let index = low; index < pieces.length && starts[index]! < span.end; index++) {
      const piece = pieces[index]!;
      const start = Math.max(0, span.start - starts[index]!);
      const end = Math.min(piece.text.length, span.end - starts[index]!);
      if (end > start) byPiece.set(piece, [...(byPiece.get(piece) ?? []), { start, end, rule: span.rule }]);
    }
  }
  return [...byPiece].map(([piece, spans]) => [piece, merged(spans)]);
}

/** Overlapping spans as one, named by the rule of the earliest; in order. */
function merged(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Span[] = [];
  for (const span of sorted) {
    const last = out[out.length - 1];
    if (last && span.start < last.end) out[out.length - 1] = { ...last, end: Math.max(last.end, span.end) };
    else out.push(span);
  }
  return out;
}

/** First characters (a quarter of the secret, at most 4), an ellipsis, and the length: never enough to use. */
export function preview(secret: string): string {
  const characters = [...secret];
  return `${characters.slice(0, Math.min(4, Math.floor(characters.length / 4))).join('')}…(${Buffer.byteLength(secret)} bytes)`;
}

/** The part of a row a secret was found in; a medium's data, which the runtime may copy elsewhere in its record, is its medium's. */
function partOf(parts: readonly Part[], secret: string, medium = false): string {
  const own = medium ? parts.findIndex((part) => part.k === 'media' && part.data === secret) : -1;
  if (own >= 0) return `part ${own + 1} (media)`;
  const escaped = JSON.stringify(secret).slice(1, -1);
  const index = parts.findIndex((part) => JSON.stringify(part).includes(escaped));
  return index >= 0 ? `part ${index + 1} (${parts[index]!.k})` : 'record';
}

function describeRows(sessionData: string, rows: ReadonlySet<number>): { dialect?: string; rows: Map<number, { id?: string; parts: Part[] }> } {
  const described = new Map<number, { id?: string; parts: Part[] }>();
  let dialect: string | undefined;
  if (!fs.existsSync(sessionData)) return { rows: described };
  for (const entry of readSessionData(sessionData, { rows })) {
    if (entry.type === 'header') dialect = entry.header.dialect;
    else if (rows.has(entry.row.row)) described.set(entry.row.row, { ...(entry.row.id !== undefined ? { id: entry.row.id } : {}), parts: entry.row.parts });
  }
  return { dialect, rows: described };
}

// A home folder in a path: /home/NAME, /Users/NAME, C:\Users\NAME (which a
// JSON payload holds as C:\\Users\\NAME).
const HOME = /(?:\/home\/|\/Users\/|\\\\Users\\\\|\\Users\\)([A-Za-z0-9._-]+)/g;

/** The user names in the home folders of everything the conversations hold, and the local user's. */
function userNamesIn(data: string, conversations: readonly string[]): string[] {
  const names = new Set<string>();
  const local = os.userInfo().username;
  if (local) names.add(local);
  for (const conversation of conversations) {
    for (const landed of landedFilesOfSession(data, conversation)) {
      for (const match of fs.readFileSync(landed.path, 'latin1').matchAll(HOME)) names.add(match[1]!);
    }
  }
  // A name is only a name: `.` and `..` after /home/ are not anyone's.
  return [...names].filter((name) => /[A-Za-z0-9]/.test(name)).sort((a, b) => b.length - a.length);
}

/** The user names, wherever a path puts a home folder: /home/NAME/, -home-NAME- in a project folder's name, C:\Users\NAME. */
function userNamePattern(names: readonly string[]) {
  const alternatives = names.map((name) => name.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join('|');
  return { name: 'user-name', pattern: new RegExp(`(?<=/home/|/Users/|\\\\Users\\\\|-home-|-Users-)(?:${alternatives})(?![A-Za-z0-9_.])`, 'g'), origin: '--redact-paths' };
}
