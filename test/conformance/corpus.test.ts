// Conformance on the real public transcripts in ../shared/corpus, when it is
// present beside the checkout. Every file must land with zero lost records,
// each payload byte-identical to its source line, and convert to `.sd` with
// every record accounted for. Shapes the adapter could not describe are
// reported, with counts, in test/artifacts/conformance-unknown-shapes.json.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeWhere, filesMissing } from '../requirements.ts';
import { claudeCodeConverter } from '../../src/adapters/claude-code/convert.ts';
import { discoverSessions } from '../../src/adapters/claude-code/discover.ts';
import { isSessionId } from '../../src/adapters/claude-code/identifiers.ts';
import { SessionDataDerivation } from '../../src/session-data/derive.ts';
import { stableUuid } from '../../scripts/claude-code-records.ts';
import { collectOnce, completeLines, landedOf, sessionDataOf, temporaryFolder } from '../helpers.ts';
import { filesUnder } from '../../scripts/files-under.ts';

const repository = fileURLToPath(new URL('../..', import.meta.url));
const corpus = path.resolve(repository, '..', 'shared', 'corpus');
const missing = filesMissing(path.join(corpus, 'MANIFEST.json'));
const present = missing === undefined;

interface ManifestEntry {
  readonly corpus_dir: string;
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly lines?: number;
  readonly trailing_newline?: boolean;
}


describeWhere(missing, 'conformance on ../shared/corpus', () => {
  const manifest = present ? (JSON.parse(fs.readFileSync(path.join(corpus, 'MANIFEST.json'), 'utf8')) as ManifestEntry[]) : [];

  it('lands every transcript file with zero lost records, byte-identical, and a .sd row for each', { timeout: 120_000 }, () => {
    // Each file lands as the main transcript of a session of its own, so that
    // files that are not in a projects tree (sidechain.jsonl, short.jsonl) are
    // covered too; the tree test below covers discovery of the real layouts.
    const root = path.join(temporaryFolder(), 'projects');
    const placed = new Map<string, { source: string; entry: ManifestEntry }>();
    manifest
      .filter((entry) => entry.path.endsWith('.jsonl'))
      .forEach((entry, index) => {
        const source = path.join(corpus, entry.corpus_dir, entry.path);
        const session = stableUuid('conformance', index);
        const target = path.join(root, `-corpus-${entry.corpus_dir}`, `${session}.jsonl`);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(source, target);
        placed.set(session, { source, entry });
      });
    expect(placed.size).toBeGreaterThan(100);
    const data = temporaryFolder();
    const report = collectOnce(root, data);
    const unknownShapes: Record<string, number> = {};
    const problems: string[] = [];
    let records = 0;
    for (const [session, { source, entry }] of placed) {
      const bytes = fs.readFileSync(source);
      // The corpus is what its manifest says it is.
      expect(crypto.createHash('sha256').update(bytes).digest('hex'), entry.path).toBe(entry.sha256);
      const lines = completeLines(source);
      if (entry.lines !== undefined && entry.lines > 0) expect(lines.length, entry.path).toBe(entry.trailing_newline === false ? entry.lines - 1 : entry.lines);
      const landed = landedOf(data, session);
      const payloads = landed.flatMap((file) => file.records.map((record) => record.payload));
      expect(payloads.length, entry.path).toBe(lines.length);
      payloads.forEach((payload, index) => expect(payload.equals(lines[index]!), `${entry.path}:${index + 1}`).toBe(true));
      for (const file of landed) {
        const { rows } = sessionDataOf(file.path);
        expect(rows.length, file.relative).toBe(file.records.length);
        // Collection parses most records as strings of bytes; derived again
        // from the landed file as text, as verification does, every row must
        // be the same bytes.
        const written = completeLines(file.path.replace(/\.jsonl$/, '.sd')).slice(1);
        const derivation = new SessionDataDerivation(file.header, claudeCodeConverter, path.basename(file.path));
        file.records.forEach((record, index) => {
          const { line } = derivation.row(record, index + 1);
          expect(written[index]!.toString('utf8'), `${file.relative} row ${index + 1}`).toBe(line.slice(0, -1));
        });
        for (const row of rows) {
          for (const part of row.parts) if (part.k === 'unknown') unknownShapes[part.why] = (unknownShapes[part.why] ?? 0) + 1;
        }
      }
      records += payloads.length;
    }
    for (const outcome of report.sessions) {
      for (const source of outcome.sources) {
        expect(['landed', 'empty'], `${source.source}: ${source.message}`).toContain(source.status);
        for (const problem of source.problems) problems.push(`${placed.get(outcome.session)!.entry.path}:${problem.ord}: ${problem.what}`);
      }
    }
    const artifacts = path.join(repository, 'test', 'artifacts');
    fs.mkdirSync(artifacts, { recursive: true });
    fs.writeFileSync(path.join(artifacts, 'conformance-unknown-shapes.json'), `${JSON.stringify({ files: placed.size, records, unknown_shapes: unknownShapes, reported_lines: problems }, null, 2)}\n`);
    expect(records).toBeGreaterThan(10_000);
  });

  it('discovers every file of the real projects trees and lands each in its stream', { timeout: 120_000 }, () => {
    const trees = [path.join(corpus, 'claude-code-log', 'test', 'test_data', 'real_projects'), path.join(corpus, 'spotter', 'test', 'fixtures')].filter((tree) => fs.existsSync(tree));
    expect(trees.length).toBe(2);
    for (const tree of trees) {
      const discovery = discoverSessions(tree);
      const discovered = new Set(discovery.sessions.flatMap((session) => session.sources.map((source) => source.path)));
      // Every transcript and sidecar in a session's place is found; what is
      // left out is not Claude Code data (a README, terminal captures) or has
      // a name that is not a session id (short.jsonl beside the sessions).
      const missed = filesUnder(tree).filter((file) => !discovered.has(file));
      const claudeCodeNamed = missed.filter((file) => path.basename(file).startsWith('agent-') || isSessionId(path.basename(file).replace(/\.jsonl$/, '')) || file.split(path.sep).some(isSessionId));
      expect(claudeCodeNamed.map((file) => path.relative(tree, file))).toEqual([]);
      const data = temporaryFolder();
      const report = collectOnce(tree, data);
      for (const session of discovery.sessions) {
        const landed = landedOf(data, session.id);
        for (const source of session.sources) {
          const files = landed.filter((file) => file.header.src === source.relative);
          const count = files.reduce((sum, file) => sum + file.records.length, 0);
          expect(count, source.relative).toBe(source.nature === 'append' ? completeLines(source.path).length : fs.statSync(source.path).size > 0 ? 1 : 0);
          for (const file of files) expect(file.relative.startsWith(source.place.type === 'stream' ? `streams/${source.place.stream}/` : `runs/${source.place.run}/`)).toBe(true);
        }
      }
      expect(report.sessions.every((outcome) => outcome.sources.every((source) => source.status === 'landed' || source.status === 'empty'))).toBe(true);
    }
  });
});
