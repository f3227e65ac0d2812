// The index: every `.sd` row of a session reduced to its identifiers.
//
// Assembly needs ids, never content: removing duplicates needs record ids,
// grouping provider calls needs call ids, joining tools needs tool-use ids,
// joining children needs agent and run ids. The index is a small fraction of
// the landed bytes (seed design-notes/02 §0), so reading it is far cheaper
// than reading `.sd` with its text.
//
// It is derived and disposable. It is rebuilt whenever it is missing, damaged
// or older than the newest landed file, and nothing may treat it as
// authoritative: the `.sd` files are what it is made from. It speaks only the
// model's words.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { replaceTailInPlace, replaceWithoutFlush } from '../files/atomic-file.ts';
import { SESSION_INDEX, sessionDataBeside, sessionFolder } from '../landing/layout.ts';
import { landedFilesOfSession } from '../landing/session-state.ts';
import { readLines, withOpenFile } from '../files/line-reader.ts';
import type { ContentState, PartKind, Producer, RecordFlag, RecordTitleSource, Trigger } from '../model/vocabulary.ts';
import { textOf } from '../files/json-text.ts';
import { readSessionData } from '../session-data/derive.ts';
import { describeToolUse, slashCommandOf } from '../adapters/built-in.ts';
import type { SessionDataRow, Usage } from '../session-data/format.ts';

export const INDEX_SCHEMA = 'index/6';

/** One `.sd` row's identifiers. */
export interface IndexEntry {
  /** Evidence coordinate: landed file sequence and row. */
  readonly seq: number;
  readonly row: number;
  /** streams/<stream> or runs/<run>. */
  readonly place: string;
  /** What the landed file holds: transcript, agent_meta, journal, workflow_manifest, workflow_script. */
  readonly kind: string;
  readonly id?: string;
  readonly parent?: string;
  readonly call?: string;
  /** The agent loop (`run` in `.sd`); named cycle here to keep it apart from workflow runs. */
  readonly cycle?: string;
  readonly ts?: string;
  readonly trigger?: Trigger;
  readonly continues?: string;
  readonly tool?: string;
  readonly child?: string;
  readonly batch?: string;
  readonly startedBy?: string;
  readonly leaf?: string;
  /** A title the record gives the conversation, and where it comes from. */
  readonly label?: string;
  readonly title?: RecordTitleSource;
  readonly model?: string;
  /** The project folder, on the first row of each landed file. */
  readonly project?: string;
  /**
   * On a prompt a person typed (not a command): what they typed, and the
   * working directory and git branch it names. Kept on prompts alone, the
   * few records a conversation's title, project and git branches are read
   * from; the working directory and git branch on the first row of each
   * landed file as well.
   */
  readonly prompt?: string;
  /** On a record of a slash command a person ran: the command and its arguments as they typed them (`/review-pr 123`), as the adapter reads them. */
  readonly command?: string;
  readonly cwd?: string;
  readonly gitBranch?: string;
  readonly stop?: string;
  readonly from: Producer;
  readonly flags: RecordFlag[];
  readonly usage?: Usage;
  /** The kind of each part, in order. */
  readonly parts: PartKind[];
  /**
   * Ids of the calls this record makes, with their names, and, for a call
   * that starts a child agent, the digest (textDigest) of the prompt it
   * hands over.
   */
  readonly calls: { readonly id: string; readonly name: string; readonly handed?: string[] }[];
  /**
   * For a child agent's first record written into its parent's file: the
   * digest of its text, which is the text a call handed over to start it.
   */
  readonly opening?: string;
  /** The calls this record answers. */
  readonly results: { readonly of: string; readonly failed?: boolean; readonly state: ContentState }[];
}

export interface SessionIndex {
  readonly session: string;
  /** The newest landed file the index covers. */
  readonly throughSeq: number;
  /** Each landed file's SHA-256, by sequence, as its `.sd` names it: what a round consumed. */
  readonly files: { readonly seq: number; readonly digest: string }[];
  /** In landed order: by sequence, then row. */
  readonly entries: IndexEntry[];
}

/**
 * One `.sd` row's identifiers, for the landed file `seq` at `place` holding
 * `kind`. `asBytes` says the row's strings hold UTF-8 bytes one character a
 * byte, so that a digest is of the same bytes in either form.
 */
export function indexEntryOf(seq: number, place: string, kind: string, row: SessionDataRow, asBytes = false): IndexEntry {
  const flags = row.flags ?? [];
  const opening = flags.includes('sidechain') && row.parent === undefined ? row.parts.flatMap((part) => (part.k === 'text' ? [part.text] : [])) : [];
  const typed = row.prompt !== undefined ? row.parts[row.prompt] : undefined;
  const prompted = typed?.k === 'text';
  // The first row of a landed file names its working directory and git branch too: a child's file may hold no typed prompt.
  const located = prompted || row.project !== undefined;
  return {
    seq,
    row: row.row,
    place,
    kind,
    id: row.id,
    parent: row.parent,
    call: row.call,
    cycle: row.run,
    ts: row.ts,
    trigger: row.trigger,
    continues: row.continues,
    tool: row.tool,
    child: row.child,
    batch: row.batch,
    startedBy: row.started_by,
    leaf: row.leaf,
    label: row.title !== undefined ? row.label : undefined,
    title: row.title,
    model: row.model,
    project: row.project,
    prompt: prompted ? typed.text.slice(0, PROMPT_KEPT) : undefined,
    command: flags.includes('command') && !flags.includes('injected') ? slashCommandOfRow(row, asBytes) : undefined,
    cwd: located ? row.cwd : undefined,
    gitBranch: located ? row.git_branch : undefined,
    stop: row.stop,
    from: row.from,
    flags,
    usage: row.usage,
    parts: row.parts.map((part) => part.k),
    calls: row.parts.flatMap((part) => (part.k === 'call' ? [{ id: part.id, name: part.name, ...handedOf(part.name, part.input, asBytes) }] : [])),
    opening: opening.length > 0 ? textDigest(opening.join('\n'), asBytes) : undefined,
    results: row.parts.flatMap((part) => (part.k === 'result' ? [{ of: part.of, failed: part.failed, state: part.state }] : [])),
  };
}

// The adapter reads the command from the row's first text as text; a row
// read as a string of bytes (one character a byte) is decoded for it, and
// what it gives is put back in that form, as the entry's other strings are.
function slashCommandOfRow(row: SessionDataRow, asBytes: boolean): string | undefined {
  const first = row.parts.find((part) => part.k === 'text');
  if (first?.k !== 'text') return undefined;
  const command = slashCommandOf(asBytes ? Buffer.from(first.text, 'latin1').toString('utf8') : first.text);
  if (command === undefined) return undefined;
  return (asBytes ? Buffer.from(command, 'utf8').toString('latin1') : command).slice(0, PROMPT_KEPT);
}

// A call that starts a child agent hands over the prompt its adapter names;
// an inline child's first text is that prompt, which is how the two are
// joined. No other call's arguments are a child's opening, so none is hashed.
function handedOf(name: string, input: unknown, asBytes: boolean): { handed?: string[] } {
  const tool = describeToolUse(name, input);
  return tool.kind === 'agent' && tool.prompt ? { handed: [textDigest(tool.prompt, asBytes)] } : {};
}

/** A short SHA-256 of a text's UTF-8 bytes: equal texts, equal digests, whichever form the string is in. */
export function textDigest(value: string, asBytes: boolean): string {
  return crypto.createHash('sha256').update(value, asBytes ? 'latin1' : 'utf8').digest('hex').slice(0, 32);
}

// How much of a prompt the index keeps, in the row's string units: bytes or
// UTF-16 code units. A character takes at most four of either, so this keeps
// at least 1,024 characters, more than the TITLE_CHARACTERS of a title and
// the one beyond them that says it was cut: a title is the same whichever
// form the rows were read in.
const PROMPT_KEPT = 4096;

export function indexPath(data: string, session: string): string {
  return path.join(sessionFolder(data, session), SESSION_INDEX);
}

/**
 * The session's index, rebuilt from its `.sd` files when it is missing,
 * damaged or behind. With `persist: false` nothing is written, for a storage
 * zone that must stay as it is (a bundle being verified). With `rebuild`,
 * the saved index is not used: some `.sd` were derived again.
 */
export function loadSessionIndex(data: string, session: string, options: { persist?: boolean; rebuild?: boolean } = {}): SessionIndex {
  const landed = landedFilesOfSession(data, session);
  const throughSeq = landed.length > 0 ? landed[landed.length - 1]!.seq : 0;
  // The .sd files are what the index is made from: one that is gone is not
  // covered for by a saved index, but read, so that the parse fails naming it.
  const saved = options.persist === false || options.rebuild === true || !landed.every((file) => fs.existsSync(sessionDataBeside(file.path))) ? undefined : readSavedIndex(indexPath(data, session), session);
  if (saved && saved.index.throughSeq === throughSeq) return saved.index;
  // A saved index that covers a prefix of what is landed now is extended by
  // the new files alone, so a round after one new line does not re-read every
  // .sd. Anything else (a gap, a file that changed under it) is rebuilt.
  const extendable = saved !== undefined && saved.index.files.length <= landed.length && saved.index.files.every((file, position) => landed[position]?.seq === file.seq) && saved.index.throughSeq === (saved.index.files.at(-1)?.seq ?? 0);
  const entries: IndexEntry[] = extendable ? [...saved.index.entries] : [];
  const files: { seq: number; digest: string }[] = extendable ? [...saved.index.files] : [];
  for (const file of extendable ? landed.slice(saved.index.files.length) : landed) {
    const sessionData = sessionDataBeside(file.path);
    let kind = '';
    // An entry keeps a row's identifiers and none of its text, so the rows
    // are read as strings of bytes and only what the entry keeps is decoded:
    // decoding the text of every part would be most of building the index.
    for (const entry of readSessionData(sessionData, { asBytes: true })) {
      if (entry.type === 'header') {
        kind = entry.header.kind;
        files.push({ seq: file.seq, digest: entry.header.of_sha });
        continue;
      }
      const indexEntry = indexEntryOf(file.seq, file.place, kind, entry.row, entry.stringsAsBytes);
      entries.push(entry.stringsAsBytes ? textOf(indexEntry) : indexEntry);
    }
  }
  const index: SessionIndex = { session, throughSeq, files, entries };
  // Nothing landed, nothing to keep: a command asked about an id the data
  // folder does not hold makes no folder for it.
  if (options.persist === false || landed.length === 0) return index;
  // Not flushed: after a crash the file is the old index, the new one, or
  // damaged, and a damaged one is rebuilt (readSavedIndex checks its summary
  // against its entries). The index is large beside the rounds, so flushing
  // it would be much of a parse's waiting on the disk, for a file that can
  // always be made again.
  const file = indexPath(data, session);
  const summary = `${JSON.stringify({ schema: INDEX_SCHEMA, session, through_seq: throughSeq, files, entries: entries.length })}\n`;
  // The lines of `list` and the summary, one by one: a whole index is
  // written so, since that of a large session is megabytes, which joined
  // would be held as one string and again as its bytes.
  function* linesWithSummary(list: readonly IndexEntry[]): Generator<string> {
    for (const entry of list) yield `${JSON.stringify(entry)}\n`;
    yield summary;
  }
  // Extended where it is: the new entries and the summary written over the
  // old summary, so that one new line costs a write of its entry, not of
  // the whole index of a large conversation.
  if (!(extendable && replaceTailInPlace(file, saved.summaryAt, [...linesWithSummary(entries.slice(saved.index.entries.length))].join('')))) replaceWithoutFlush(file, linesWithSummary(entries));
  return index;
}

// A saved index is one line per entry, in landed order, then a summary: its
// schema, session, the newest landed file it covers, each landed file's
// digest, and how many entries come before it. Last rather than first, so
// that an index is extended by writing over its summary. It is used only
// when it is whole, its summary counting its entries; a schema it does not
// know means it is rebuilt, never migrated.
function readSavedIndex(file: string, session: string): { index: SessionIndex; summaryAt: number } | undefined {
  if (!fs.existsSync(file)) return undefined;
  try {
    return withOpenFile(file, (descriptor) => {
      const size = fs.fstatSync(descriptor).size;
      const entries: IndexEntry[] = [];
      let last: { value: unknown; offset: number } | undefined;
      for (const line of readLines(descriptor, 0, size)) {
        if (last !== undefined) entries.push(last.value as IndexEntry);
        last = { value: JSON.parse(line.bytes.toString('utf8')), offset: line.offset };
      }
      const summary = last?.value as { schema?: string; session?: string; through_seq?: number; files?: { seq: number; digest: string }[]; entries?: number } | undefined;
      if (summary?.schema !== INDEX_SCHEMA || summary.session !== session || summary.entries !== entries.length || typeof summary.through_seq !== 'number' || !Array.isArray(summary.files)) return undefined;
      return { index: { session, throughSeq: summary.through_seq, files: summary.files, entries }, summaryAt: last!.offset };
    });
  } catch {
    return undefined;
  }
}
