// Shared by the tests: temporary folders, a fixture tree to change freely,
// and a way to read back what landed.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import { claudeCodeAdapter } from '../src/adapters/claude-code/adapter.ts';
import { discoverSessions } from '../src/adapters/claude-code/discover.ts';
import { sessionMatcher } from '../src/adapters/claude-code/filters.ts';
import { writeArchive } from '../src/bundle/archive.ts';
import { writeExport } from '../src/export/export-folder.ts';
import { collectAll, type CollectAllReport } from '../src/collection/collect-all.ts';
import { readLandedFile, type LandedHeader, type LandedRecord } from '../src/landing/landed-file.ts';
import { landedFilesOfSession } from '../src/landing/session-state.ts';
import { parseSession } from '../src/parse/parse.ts';
import { assemble } from '../src/parse/structure.ts';
import { loadSessionIndex } from '../src/index/session-index.ts';
import type { FlowNode, Structure } from '../src/model/structure.ts';
import { readSessionData, type SessionDataEntry } from '../src/session-data/derive.ts';
import type { SessionDataRow } from '../src/session-data/format.ts';
import { FIXTURE_ROOT } from '../scripts/write-fixtures.ts';

const madeForTest: string[] = [];
const madeForFile: string[] = [];

// Landed files are read-only; the folders holding them are not, so removal works.
function remove(folders: string[]): void {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
}
afterEach(() => remove(madeForTest));
afterAll(() => remove(madeForFile));

/** The process id of a process that has ended: what a crashed or killed run of the tool leaves its files named for. */
export function endedPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

/** A folder removed after the test; with `forFile`, after the whole test file (for beforeAll). */
export function temporaryFolder(options: { forFile?: boolean } = {}): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sessionizer-test-'));
  (options.forFile ? madeForFile : madeForTest).push(folder);
  return folder;
}

/** A private copy of the fixture tree, so a test can append, rotate or delete. */
export function copyOfFixtures(options: { forFile?: boolean } = {}): string {
  const root = path.join(temporaryFolder(options), 'projects');
  fs.cpSync(FIXTURE_ROOT, root, { recursive: true });
  return root;
}

export function collectOnce(root: string, data: string, options: { include?: string[]; exclude?: string[] } = {}): CollectAllReport {
  return collectAll({
    data,
    adapter: claudeCodeAdapter,
    discovery: discoverSessions(root),
    selected: sessionMatcher({ include: options.include ?? [], exclude: options.exclude ?? [] }),
  });
}

export interface LandedFileContent {
  readonly path: string;
  readonly relative: string;
  readonly header: LandedHeader;
  readonly records: LandedRecord[];
}

export function landedOf(data: string, session: string): LandedFileContent[] {
  return landedFilesOfSession(data, session).map((file) => {
    let header: LandedHeader | undefined;
    const records: LandedRecord[] = [];
    for (const entry of readLandedFile(file.path)) {
      if (entry.type === 'header') header = entry.header;
      else records.push({ ...entry.record, payload: Buffer.from(entry.record.payload) });
    }
    return { path: file.path, relative: file.relative, header: header!, records };
  });
}

export function sessionDataOf(landed: string): { header: Extract<SessionDataEntry, { type: 'header' }>['header']; rows: SessionDataRow[] } {
  const entries = [...readSessionData(landed.replace(/\.jsonl$/, '.sd'))];
  const header = entries[0];
  if (header?.type !== 'header') throw new Error(`${landed}: .sd without a header`);
  return { header: header.header, rows: entries.slice(1).map((entry) => (entry as Extract<SessionDataEntry, { type: 'row' }>).row) };
}

/** The complete lines of a source file, as bytes, without their newlines. */
export function completeLines(file: string): Buffer[] {
  const bytes = fs.readFileSync(file);
  const lines: Buffer[] = [];
  let start = 0;
  for (;;) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline < 0) break;
    lines.push(bytes.subarray(start, newline));
    start = newline + 1;
  }
  return lines;
}

export { foldedStructure as foldedEntities } from '../src/session-flow/chain.ts';

/**
 * The fixtures collected and parsed, and `sessions` exported, with the site
 * unless `site` is false, in folders kept for the whole test file (for
 * beforeAll). Returns the export folder.
 */
export async function exportedSessions(sessions: readonly string[], options: { site?: boolean } = {}): Promise<string> {
  const data = temporaryFolder({ forFile: true });
  collectOnce(copyOfFixtures({ forFile: true }), data);
  for (const session of sessions) parseSession(data, session);
  const out = path.join(temporaryFolder({ forFile: true }), 'export');
  await writeExport(data, out, [...sessions], { site: options.site ?? true });
  return out;
}

/** Every file under `folder`, by path from it in sorted order, with its bytes. */
export function filesOf(folder: string): Map<string, Buffer> {
  const files: [string, Buffer][] = [];
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push([path.relative(folder, path.join(entry.parentPath, entry.name)), fs.readFileSync(path.join(entry.parentPath, entry.name))]);
  }
  return new Map(files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The same files, the same bytes. */
export function expectSameFiles(found: Map<string, Buffer>, expected: Map<string, Buffer>): void {
  expect([...found.keys()]).toEqual([...expected.keys()]);
  for (const [name, bytes] of expected) expect(found.get(name)!.equals(bytes), name).toBe(true);
}

/** Exported without a site, and archived too. */
export async function exportedFixtures(sessions: readonly string[]): Promise<{ out: string; archive: string }> {
  const out = await exportedSessions(sessions, { site: false });
  const archive = path.join(temporaryFolder({ forFile: true }), 'export.tar.zst');
  await writeArchive(out, archive);
  return { out, archive };
}

/**
 * One fixture session collected and parsed twice, its first two lines and
 * then the rest, so that its chain has two rounds; exported without a site.
 * Returns the export folder.
 */
export async function exportInTwoRounds(fixtureFolder: string, session: string): Promise<string> {
  const root = copyOfFixtures();
  const data = temporaryFolder();
  const transcript = path.join(root, fixtureFolder, `${session}.jsonl`);
  const lines = completeLines(transcript);
  const joined = (part: Buffer[]): Buffer => Buffer.concat(part.flatMap((line) => [line, Buffer.from('\n')]));
  fs.writeFileSync(transcript, joined(lines.slice(0, 2)));
  collectOnce(root, data);
  parseSession(data, session);
  fs.appendFileSync(transcript, joined(lines.slice(2)));
  collectOnce(root, data);
  parseSession(data, session);
  const out = path.join(temporaryFolder(), 'export');
  await writeExport(data, out, [session], { site: false });
  return out;
}

/** A session's structure, assembled from its index as a parse does, with its nodes by kind and by id. */
export interface AssembledStructure extends Structure {
  kinds(kind: string): FlowNode[];
  node(id: string): FlowNode | undefined;
}

export function assembledStructure(data: string, session: string): AssembledStructure {
  const index = loadSessionIndex(data, session);
  const structure = assemble(index, { conversation: session, throughSeq: index.throughSeq });
  return { ...structure, kinds: (kind) => structure.nodes.filter((node) => node.kind === kind), node: (id) => structure.nodes.find((node) => node.id === id) };
}

/** A copy of the fixtures collected into a data folder of its own, with `sessions` parsed. */
export function parsedFixtures(sessions: readonly string[]): { root: string; data: string } {
  const root = copyOfFixtures();
  const data = temporaryFolder();
  collectOnce(root, data);
  for (const session of sessions) parseSession(data, session);
  return { root, data };
}
