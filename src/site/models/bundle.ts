// One conversation of a bundle, read for the site: the folded round chain,
// every `.sd` row by its evidence coordinate, where each landed file is, and
// the branches. The site reads the bundle and nothing else (DESIGN.md: it is
// a pure function of the bundle), and it never writes into it: the session
// index is built in memory from the rows rather than saved beside the evidence.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { currentLabels } from '../../branches/labels.ts';
import { explicitBranches, mainStreamOfEntries, type BranchRecord } from '../../branches/explicit.ts';
import { analyseBranches, type BranchAnalysis } from '../../branches/natural.ts';
import { ancestry, treeOf, type Tree } from '../../branches/tree.ts';
import { indexEntryOf, type IndexEntry } from '../../index/session-index.ts';
import { readLandedFile } from '../../landing/landed-file.ts';
import { sessionDataBeside } from '../../landing/layout.ts';
import { landedFilesOfSession, type LandedFileEntry } from '../../landing/session-state.ts';
import { readSessionData } from '../../session-data/derive.ts';
import type { SessionDataRow } from '../../session-data/format.ts';
import { foldRounds, roundFiles, type Folded } from '../../session-flow/chain.ts';
import type { EvidenceRef } from '../../model/structure.ts';
import { ConversationRows, HELD_MOST_BYTES } from './rows.ts';
import { EvidencePages } from './evidence.ts';

/** One row of a `.sd`, where its line is in the file, and the session index entry it makes. */
interface RowRead {
  readonly row: SessionDataRow;
  readonly offset: number;
  readonly length: number;
  readonly entry: IndexEntry;
}

/** Reads the rows of the `.sd` beside landed file `file` one by one, with the index entries they make. `hash` is given the bytes read. */
function* rowsOfSessionData(file: LandedFileEntry, hash: crypto.Hash): Generator<RowRead> {
  let kind = '';
  for (const entry of readSessionData(sessionDataBeside(file.path), { hash })) {
    if (entry.type === 'header') kind = entry.header.kind;
    else yield { row: entry.row, offset: entry.offset, length: entry.length, entry: indexEntryOf(file.seq, file.place, kind, entry.row) };
  }
}

export interface ExplicitBranchView {
  readonly record: BranchRecord;
  /** The records from the root to the boundary. */
  readonly path: IndexEntry[];
}

export interface BundleConversation {
  readonly id: string;
  readonly session: string;
  readonly folded: Folded;
  /** Every `.sd` row of the session, by evidence coordinate: its outline, and its parts held or read again when asked for (rows.ts). */
  readonly rows: ConversationRows;
  /** Each landed file's path inside the bundle, by sequence. */
  readonly landed: Map<number, string>;
  /** The evidence page of each row (evidence.ts). */
  readonly evidence: EvidencePages;
  /** The bytes of every bundle file of the conversation: its evidence, `.sd` and rounds. */
  readonly bytes: number;
  /** The conversation's title, as its session node states it. */
  readonly title?: string;
  /** Where the main stream's first landed file was under its source root (its header's `src`): the project folder comes first. */
  readonly source?: string;
  /** The models the rows name, each once, in the order first named. */
  readonly models: string[];
  readonly branches: BranchAnalysis;
  readonly explicit: ExplicitBranchView[];
  /** Caller-given summaries and labels, by branch name. */
  readonly labels: Map<string, { labels: string[]; summary?: string }>;
}

export const refKey = (ref: EvidenceRef): string => `${ref.seq}:${ref.row}`;

/**
 * One conversation of the bundle. Every row is outlined as it is read; the
 * views of its parts are held too when its `.sd` files come to
 * `heldMostBytes` or less, and read again from the
 * bundle for a page when they are not (rows.ts).
 */
export function loadConversation(bundle: string, id: string, options: { heldMostBytes?: number } = {}): BundleConversation {
  const folded = foldRounds(roundFiles(bundle, id));
  const head = folded.rounds.at(-1);
  if (!head) throw new Error(`${path.join(bundle, '_conversations', id)}: the conversation has no rounds`);
  const session = head.header.session;
  const rows = new ConversationRows();
  const landed = new Map<number, string>();
  const entries: IndexEntry[] = [];
  let bytes = 0;
  // The title assembly chose from the records (docs/usage-and-titles.md).
  const title = [...folded.nodes.values()].find((node) => node.kind === 'session')?.attrs?.title as string | undefined;
  let source: string | undefined;
  const models = new Set<string>();
  const files = landedFilesOfSession(bundle, session).map((file) => {
    const sessionData = sessionDataBeside(file.path);
    const size = fs.statSync(file.path).size;
    return { file, sessionData, size, sessionDataSize: fs.existsSync(sessionData) ? fs.statSync(sessionData).size : undefined };
  });
  const held = files.reduce((sum, { sessionDataSize }) => sum + (sessionDataSize ?? 0), 0) <= (options.heldMostBytes ?? HELD_MOST_BYTES);
  for (const { file, sessionData, size, sessionDataSize } of files) {
    landed.set(file.seq, `${session}/${file.relative}`);
    bytes += size;
    if (sessionDataSize === undefined) continue;
    bytes += sessionDataSize;
    const main = file.relative.startsWith('streams/main/');
    if (main && source === undefined) source = sourceOf(file.path);
    // The branch analysis needs the index of these rows; it is built from
    // them here rather than by reading every `.sd` a second time.
    const hash = crypto.createHash('sha256');
    for (const read of rowsOfSessionData(file, hash)) {
      rows.add(file.seq, sessionData, read, held);
      entries.push(read.entry);
      if (read.row.model !== undefined && !read.row.flags?.includes('synthetic')) models.add(read.row.model);
    }
    rows.read(file.seq, hash.digest('hex'));
  }
  for (const round of folded.rounds) bytes += fs.statSync(round.file).size;
  const labels = new Map<string, { labels: string[]; summary?: string }>();
  for (const [name, label] of currentLabels(bundle, id)) labels.set(name, { labels: label.labels, ...(label.summary !== undefined ? { summary: label.summary } : {}) });
  const summaries = new Map([...labels].flatMap(([name, label]) => (label.summary !== undefined ? [[name, label.summary] as const] : [])));
  const { records } = mainStreamOfEntries(entries);
  const branches = analyseBranches(records, summaries);
  // Made only for a conversation with explicit branches: the tree of a
  // large conversation takes time (bench/results/measurements-behind-choices.md).
  let tree: Tree | undefined;
  const explicit: ExplicitBranchView[] = [];
  for (const entry of explicitBranches(bundle, id)) {
    if (!entry.intact) throw new Error(`${entry.file}: ${entry.problem}`);
    tree ??= treeOf(records);
    const boundary = entry.record.boundary.event === 'root' ? undefined : tree.byId.get(entry.record.boundary.event);
    const found = boundary === undefined ? [] : ancestry(tree, boundary);
    // A boundary that is gone or cannot be projected is shown as such, with no path.
    explicit.push({ record: entry.record, path: typeof found === 'string' ? [] : found });
  }
  return { id, session, folded, rows, landed, evidence: new EvidencePages(bundle, id, landed), bytes, ...(title !== undefined ? { title } : {}), ...(source !== undefined ? { source } : {}), models: [...models], branches, explicit, labels };
}

/** The `src` of a landed file's header: its header is read, and nothing after it. */
function sourceOf(file: string): string {
  for (const entry of readLandedFile(file)) {
    if (entry.type === 'header') return entry.header.src;
  }
  throw new Error(`${file}: the landed file has no header`);
}
