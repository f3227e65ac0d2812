// The first assembly stages on every transcript of ../shared/corpus: after
// duplicate removal every tool use joins its result, except exactly the ones
// whose result the manifest says is not in the file, whether or not the file
// kept the provider's message ids, and no result is left without its use
// unless the record it answers is not in the file.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeWhere, filesMissing } from '../requirements.ts';
import { removeDuplicates } from '../../src/assembly/duplicates.ts';
import { groupProviderCalls } from '../../src/assembly/provider-calls.ts';
import { partitionStreams } from '../../src/assembly/streams.ts';
import { joinTools } from '../../src/assembly/tools.ts';
import { loadSessionIndex, type SessionIndex } from '../../src/index/session-index.ts';
import { stableUuid } from '../../scripts/claude-code-records.ts';
import { collectOnce, foldedEntities, landedOf, temporaryFolder } from '../helpers.ts';
import { QUIET_TAIL_MS } from '../../src/collection/source-verdict.ts';
import { assemble } from '../../src/parse/structure.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { readChain } from '../../src/session-flow/chain.ts';
import { analyseBranches } from '../../src/branches/natural.ts';
import { verifyChains } from '../../src/verify/chains.ts';
import { verifyStorage } from '../../src/verify/storage.ts';

const corpus = path.resolve(fileURLToPath(new URL('../..', import.meta.url)), '..', 'shared', 'corpus');
const missing = filesMissing(path.join(corpus, 'MANIFEST.json'));

interface Features {
  readonly tool_use_ids?: number;
  readonly tool_results_matched?: number;
  readonly assistant_missing_message_id?: number;
  readonly sidechain_records?: number;
  readonly isSidechain_true?: number;
  readonly task_tool_use?: number;
  readonly INLINE_SIDECHAIN_MIXED?: number;
}

interface ManifestEntry {
  readonly corpus_dir: string;
  readonly path: string;
  readonly lines: number;
  readonly trailing_newline?: boolean;
  readonly features?: Features;
}

interface PlacedFile {
  readonly path: string;
  readonly features: Features;
  readonly lines: number;
  readonly newline: boolean;
}

/**
 * Each transcript of the manifest placed as the main file of a session of its
 * own and landed once. Every file with a line lands, and only an empty one is
 * left out, so the sessions are every transcript with a line.
 */
function placed(options: { quietSince?: Date } = {}): { data: string; sessions: Map<string, PlacedFile> } {
  const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'MANIFEST.json'), 'utf8')) as ManifestEntry[];
  const root = path.join(temporaryFolder(), 'projects');
  const sessions = new Map<string, PlacedFile>();
  manifest
    .filter((entry) => entry.path.endsWith('.jsonl'))
    .forEach((entry, index) => {
      const session = stableUuid('generations-conformance', index);
      const target = path.join(root, '-corpus', `${session}.jsonl`);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(path.join(corpus, entry.corpus_dir, entry.path), target);
      if (options.quietSince) fs.utimesSync(target, options.quietSince, options.quietSince);
      sessions.set(session, { path: entry.path, features: entry.features ?? {}, lines: entry.lines, newline: entry.trailing_newline !== false });
    });
  const data = temporaryFolder();
  collectOnce(root, data);
  for (const [session, placedFile] of [...sessions]) {
    const landed = fs.existsSync(path.join(data, session));
    expect(landed, placedFile.path).toBe(placedFile.lines > 0);
    if (!landed) sessions.delete(session);
  }
  return { data, sessions };
}

/** Each placed transcript assembled whole, with its manifest entry and index. */
function assembled(): { entry: PlacedFile; index: SessionIndex; structure: ReturnType<typeof assemble> }[] {
  const { data, sessions } = placed();
  return [...sessions].map(([session, entry]) => {
    const index = loadSessionIndex(data, session);
    return { entry, index, structure: assemble(index, { conversation: session, throughSeq: index.throughSeq }) };
  });
}

/** The talk a node is inside, walking up its parents; undefined when it is in none. */
function talkOf(nodes: ReadonlyMap<string, { readonly id: string; readonly kind: string; readonly parent?: string }>, id: string): string | undefined {
  for (let at = nodes.get(id); at; at = at.parent !== undefined ? nodes.get(at.parent) : undefined) if (at.kind === 'talk') return at.id;
  return undefined;
}

describeWhere(missing, 'assembly stages on ../shared/corpus', () => {
  it('joins every tool use to its result, and names exactly the ones whose result is not in the file', { timeout: 120_000 }, () => {
    // Every transcript with a line (placed), each one checked.
    const { data, sessions } = placed();
    for (const [session, entry] of sessions) {
      const removal = removeDuplicates(loadSessionIndex(data, session).entries);
      // One file can hold several streams: its own and its children's, written into it.
      let fileSteps = 0;
      let fileMissing = 0;
      for (const stream of partitionStreams(removal.canonical).streams.values()) {
        const join = joinTools(stream.id, stream.records, groupProviderCalls(stream.id, stream.records));
        fileSteps += join.steps.length;
        fileMissing += join.steps.filter((step) => step.result === 'unavailable').length;
        // A result can answer a use outside the file only when the record it
        // hangs off is not in the file either (a file that continues another).
        const ids = new Set(stream.records.map((record) => record.id));
        expect(join.orphanResults.filter((orphan) => orphan.record.parent === undefined || ids.has(orphan.record.parent)).map((orphan) => orphan.of), entry.path).toEqual([]);
      }
      expect([fileSteps, fileMissing], entry.path).toEqual([entry.features.tool_use_ids ?? 0, (entry.features.tool_use_ids ?? 0) - (entry.features.tool_results_matched ?? 0)]);
    }
  });
});

describeWhere(missing, 'every generation of Claude Code file on ../shared/corpus', () => {
  it('lands the last line of a file without a final newline once the file is quiet, and leaves it for the next pass while it is not', { timeout: 180_000 }, () => {
    for (const quiet of [true, false]) {
      const { data, sessions } = placed(quiet ? { quietSince: new Date(Date.now() - QUIET_TAIL_MS - 60_000) } : {});
      let withoutNewline = 0;
      for (const [session, entry] of sessions) {
        const records = landedOf(data, session).reduce((sum, landed) => sum + landed.records.length, 0);
        expect(records, `${entry.path}, quiet: ${quiet}`).toBe(entry.newline || quiet ? entry.lines : entry.lines - 1);
        if (!entry.newline) withoutNewline++;
      }
      expect(withoutNewline).toBeGreaterThan(0);
    }
  });

  it('makes each assistant record without a provider message id a provider call of its own, and counts them', { timeout: 180_000 }, () => {
    let without = 0;
    for (const { entry, structure } of assembled()) {
      const expected = entry.features.assistant_missing_message_id ?? 0;
      expect(structure.counts.provider_calls_without_id, entry.path).toBe(expected);
      const calls = structure.nodes.filter((node) => node.kind === 'llm.call' && node.attrs?.provider_id === 'unavailable');
      expect(calls.length, entry.path).toBe(expected);
      without += expected;
    }
    expect(without).toBeGreaterThan(0);
  });

  it('makes each child agent written into its parent file a child stream, started by the call that handed it its prompt', { timeout: 180_000 }, () => {
    let inlineFiles = 0;
    for (const { entry, index, structure } of assembled()) {
      const nodes = new Map(structure.nodes.map((node) => [node.id, node]));
      // Every record the file marks as a child's is in a child stream, and none is left in main.
      const marked = entry.features.sidechain_records ?? entry.features.isSidechain_true ?? 0;
      const children = structure.nodes.filter((node) => node.kind === 'stream' && node.id !== 'stream/main');
      const childRecords = children.reduce((sum, node) => sum + (node.attrs!.records as number), 0);
      const copies = structure.counts.duplicates ?? 0;
      expect(childRecords + copies >= marked && childRecords <= marked, `${entry.path}: ${childRecords} child records, ${marked} marked`).toBe(true);
      if (!entry.features.INLINE_SIDECHAIN_MIXED) continue;
      inlineFiles++;
      // A main file with its children inline: each child is started by one of its Task calls, and says how the join was made.
      const starts = structure.relations.filter((relation) => relation.type === 'starts');
      const orphans = structure.unresolved.filter((unresolved) => unresolved.kind === 'orphan_stream');
      expect(orphans.map((orphan) => orphan.ref), entry.path).toEqual([]);
      expect(children.length, entry.path).toBeGreaterThan(0);
      expect(children.length, entry.path).toBeLessThanOrEqual(entry.features.task_tool_use ?? 0);
      for (const child of children) {
        const joins = starts.filter((relation) => relation.to === child.id);
        expect(joins.length, `${entry.path} ${child.id}`).toBeGreaterThan(0);
        for (const join of joins) {
          expect(join.via).toBe('prompt');
          expect(['strong_inference', 'weak_inference']).toContain(join.quality);
          expect(nodes.get(join.from)!.kind).toBe('agent.call');
        }
      }
      // No record a child wrote is a step of the main stream.
      const childRows = new Set(index.entries.filter((record) => record.flags.includes('sidechain')).map((record) => `${record.seq}:${record.row}`));
      const mainSteps = structure.nodes.filter((node) => node.stream === 'main' && node.kind !== 'branch' && (node.refs ?? (node.ref ? [node.ref] : [])).some((ref) => childRows.has(`${ref.seq}:${ref.row}`)));
      expect(mainSteps.map((node) => node.id), entry.path).toEqual([]);
    }
    expect(inlineFiles).toBeGreaterThan(0);
  });

  it('reads every step of the agent and its tools inside a talk, also where the evidence begins in the middle of one', { timeout: 180_000 }, () => {
    let notInEvidence = 0;
    for (const { entry, structure } of assembled()) {
      const nodes = new Map(structure.nodes.map((node) => [node.id, node]));
      const outside = structure.nodes.filter((node) => ['llm.call', 'tool', 'agent.call'].includes(node.kind) && talkOf(nodes, node.id) === undefined).map((node) => node.id);
      expect(outside, entry.path).toEqual([]);
      notInEvidence += structure.nodes.filter((node) => node.kind === 'talk' && node.attrs?.started_by === 'start_not_in_evidence').length;
    }
    expect(notInEvidence).toBeGreaterThan(0);
  });
});

describeWhere(missing, 'conversation structure on the real projects trees', () => {
  const trees = [path.join(corpus, 'claude-code-log', 'test', 'test_data', 'real_projects'), path.join(corpus, 'spotter', 'test', 'fixtures')];

  it('attaches every child stream to the call that started it or names it as an orphan, and no record lands in two talks', { timeout: 120_000 }, () => {
    let children = 0;
    let started = 0;
    for (const tree of trees) {
      const data = temporaryFolder();
      collectOnce(tree, data);
      for (const session of fs.readdirSync(data).filter((name) => !name.startsWith('_'))) {
        const index = loadSessionIndex(data, session);
        const structure = assemble(index, { conversation: session, throughSeq: index.throughSeq });
        const nodes = new Map(structure.nodes.map((node) => [node.id, node]));
        const starts = structure.relations.filter((relation) => relation.type === 'starts');
        const orphans = structure.unresolved.filter((entry) => entry.kind === 'orphan_stream').map((entry) => entry.ref);
        const childStreams = structure.nodes.filter((node) => node.kind === 'stream' && node.id !== 'stream/main').map((node) => node.id);
        // Each child is either started by a known call (or, nested, by its parent stream) or recorded as an orphan.
        expect(childStreams.filter((id) => !starts.some((relation) => relation.to === id) && !orphans.includes(id)), session).toEqual([]);
        for (const relation of starts) expect(['agent.call', 'stream'], relation.id).toContain(nodes.get(relation.from)!.kind);
        children += childStreams.length;
        started += new Set(starts.map((relation) => relation.to)).size;
        // Walk each step node up to its talk: a record belongs to one talk only.
        const seen = new Map<string, string>();
        for (const node of structure.nodes) {
          if (!node.ref || ['talk', 'epoch', 'segment', 'session', 'stream', 'run'].includes(node.kind)) continue;
          const talk = talkOf(nodes, node.id);
          if (talk === undefined) continue;
          for (const ref of node.refs ?? [node.ref]) {
            const key = `${ref.seq}:${ref.row}`;
            const earlier = seen.get(key);
            if (earlier !== undefined) expect(earlier, `${session} ${key}`).toBe(talk);
            seen.set(key, talk);
          }
        }
        // Where records state an origin, each stated human prompt (not a queued one) starts exactly one talk.
        const stated = index.entries.filter((entry) => entry.place === 'streams/main' && entry.trigger === 'external' && !entry.flags.includes('queued') && !entry.flags.includes('injected'));
        if (stated.length > 0) expect(structure.nodes.filter((node) => node.kind === 'talk' && node.stream === 'main' && node.attrs?.started_by === 'stated_trigger').length, session).toBe(new Set(stated.map((entry) => entry.cycle ?? entry.id)).size);
      }
    }
    expect(children).toBeGreaterThan(50);
    expect(started).toBeGreaterThanOrEqual(14);
  });

  it('folds rounds parsed after each of three collections to exactly one assembly of all the evidence', { timeout: 180_000 }, () => {
    const source = path.join(temporaryFolder(), 'projects');
    fs.cpSync(trees[1]!, source, { recursive: true });
    const files: { file: string; lines: Buffer[] }[] = [];
    const walk = (folder: string): void => {
      for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
        const full = path.join(folder, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.jsonl')) {
          const bytes = fs.readFileSync(full);
          const lines: Buffer[] = [];
          for (let start = 0, end = bytes.indexOf(0x0a); end >= 0; start = end + 1, end = bytes.indexOf(0x0a, start)) lines.push(bytes.subarray(start, end + 1));
          files.push({ file: full, lines });
          fs.writeFileSync(full, '');
        }
      }
    };
    walk(source);
    const data = temporaryFolder();
    for (const [from, to] of [[0, 0.34], [0.34, 0.67], [0.67, 1]] as const) {
      for (const { file, lines } of files) fs.appendFileSync(file, Buffer.concat(lines.slice(Math.ceil(lines.length * from), Math.ceil(lines.length * to))));
      collectOnce(source, data);
      for (const session of fs.readdirSync(data).filter((name) => !name.startsWith('_'))) parseSession(data, session);
    }
    const sessions = fs.readdirSync(data).filter((name) => !name.startsWith('_'));
    expect(sessions.length).toBe(6);
    for (const session of sessions) {
      const folded = readChain(data, session);
      expect(folded.rounds.length, session).toBe(3);
      const index = loadSessionIndex(data, session);
      const full = assemble(index, { conversation: session, throughSeq: index.throughSeq });
      expect(foldedEntities(folded), session).toEqual({ nodes: full.nodes, relations: full.relations, unresolved: full.unresolved });
    }
    expect(verifyChains(data, verifyStorage(data).landed).problems).toEqual([]);
  });
});

describeWhere(missing, 'natural branches on the real projects trees', () => {
  it('reports the branches found per session, and counts no parallel-tool fork as a branch', { timeout: 120_000 }, () => {
    const report: Record<string, { forks: Record<string, number>; branches: string[] }> = {};
    for (const tree of [path.join(corpus, 'claude-code-log', 'test', 'test_data', 'real_projects'), path.join(corpus, 'spotter', 'test', 'fixtures')]) {
      const data = temporaryFolder();
      collectOnce(tree, data);
      for (const session of fs.readdirSync(data).filter((name) => !name.startsWith('_'))) {
        const main = partitionStreams(removeDuplicates(loadSessionIndex(data, session).entries).canonical).streams.get('main');
        if (!main) continue;
        const result = analyseBranches(main.records);
        const forks: Record<string, number> = {};
        for (const fork of result.forks) forks[fork.kind] = (forks[fork.kind] ?? 0) + 1;
        report[session] = { forks, branches: result.branches.filter((branch) => !branch.active).map((branch) => branch.name) };
        for (const fork of result.forks.filter((entry) => entry.kind === 'branch')) {
          // A real branch never forks at a tool call whose children answer it.
          expect(fork.at?.calls.length ?? 0, `${session} ${fork.at?.id}`).toBe(0);
        }
      }
    }
    const artifacts = path.join(fileURLToPath(new URL('../..', import.meta.url)), 'test', 'artifacts');
    fs.mkdirSync(artifacts, { recursive: true });
    fs.writeFileSync(path.join(artifacts, 'conformance-branches.json'), `${JSON.stringify(report, null, 2)}\n`);
    const parallel = Object.values(report).reduce((sum, entry) => sum + (entry.forks.parallel_tools ?? 0), 0);
    const branched = Object.entries(report).filter(([, entry]) => entry.branches.length > 0);
    expect(parallel).toBeGreaterThan(50);
    expect(branched.length).toBeGreaterThanOrEqual(1);
  });
});
