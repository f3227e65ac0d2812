// The assembly benchmark: `node --import tsx bench/assembly.ts [--turns 6000] [--runs 3]`
// (part of `npm run bench`).
//
// One generated session with tens of thousands of turns (a prompt, a
// provider call with reasoning, text and a tool use, its result, an answer),
// so that its structure has well over 50,000 nodes. It is landed once, then
// each run measures, on the same storage:
//   baseline     read + SHA-256 of the landed and .sd bytes (the foundation's baseline)
//   index        building the identifier index from every .sd, and loading it saved
//   assemble     the eight stages over the index
//   parse        index, assembly and writing round 1 of a fresh chain
//   fold         reading, checking and folding the chain
//   subtree      one talk's subtree from the folded nodes, once a parent map exists
//   next round   one more turn landed, then the round it adds
// Targets (issue 3): fold under 300 ms; one talk's subtree in microseconds.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { claudeCodeAdapter } from '../src/adapters/claude-code/adapter.ts';
import { discoverSessions } from '../src/adapters/claude-code/discover.ts';
import { assemble } from '../src/parse/structure.ts';
import { collectAll } from '../src/collection/collect-all.ts';
import { indexPath, loadSessionIndex } from '../src/index/session-index.ts';
import { landedFilesOfSession } from '../src/landing/session-state.ts';
import { parseSession } from '../src/parse/parse.ts';
import { conversationFolder, readChain } from '../src/session-flow/chain.ts';
import { stableUuid, textBlock, thinkingBlock, toolUseBlock, Transcript } from '../scripts/claude-code-records.ts';
import { bench, option, writeResults } from './corpus.ts';
import { median } from './median.ts';

const turns = Number(option('turns', '6000'));
const runs = Number(option('runs', '3'));

const session = stableUuid('assembly-bench', turns);
const work = path.join(bench, 'work', `assembly-${turns}`);
const root = path.join(work, 'projects');
const data = path.join(work, 'data');
const transcript = path.join(root, '-home-user-bench', `${session}.jsonl`);

function turn(t: Transcript, index: number): void {
  t.prompt(`Step ${index}: look at module ${index % 97} and tell me what it exports.`, { promptId: `p-${index}` });
  const id = `toolu_bench${index.toString(36).padStart(8, '0')}`;
  const fragments = t.call([thinkingBlock(300), textBlock(`Reading module ${index % 97}.`), toolUseBlock(id, 'Read', { file_path: `/home/user/project/src/module${index % 97}.ts` })]);
  t.result(id, fragments[2]!, `export function module${index % 97}() {\n  return ${index};\n}\n`, { toolUseResult: { type: 'text', file: { filePath: `/home/user/project/src/module${index % 97}.ts`, numLines: 3 } } });
  t.call([textBlock(`Module ${index % 97} exports one function, module${index % 97}.`)]);
}

if (!fs.existsSync(path.join(work, 'complete'))) {
  fs.rmSync(work, { recursive: true, force: true });
  const t = new Transcript({ session });
  for (let index = 0; index < turns; index++) turn(t, index);
  fs.mkdirSync(path.dirname(transcript), { recursive: true });
  fs.writeFileSync(transcript, t.text());
  collectAll({ data, adapter: claudeCodeAdapter, discovery: discoverSessions(root), selected: () => true });
  fs.writeFileSync(path.join(work, 'complete'), '');
}

function timed<T>(work: () => T): { ms: number; value: T } {
  const started = performance.now();
  const value = work();
  return { ms: performance.now() - started, value };
}


// Each run starts from the same evidence, landed afresh, so the names of the landed files change between runs.
let landedFiles = landedFilesOfSession(data, session);
const landedBytes = landedFiles.reduce((sum, file) => sum + fs.statSync(file.path).size, 0);
const sdBytes = landedFiles.reduce((sum, file) => sum + fs.statSync(file.path.replace(/\.jsonl$/, '.sd')).size, 0);
const rows: Record<string, number[]> = { baseline: [], indexBuild: [], indexLoad: [], assemble: [], parse: [], fold: [], subtree: [], nextRound: [] };
let nodes = 0;
let records = 0;
for (let run = 0; run < runs; run++) {
  process.stderr.write(`assembly: run ${run + 1} of ${runs}\n`);
  landedFiles = landedFilesOfSession(data, session);
  rows.baseline!.push(
    timed(() => {
      for (const file of landedFiles) for (const target of [file.path, file.path.replace(/\.jsonl$/, '.sd')]) crypto.createHash('sha256').update(fs.readFileSync(target)).digest('hex');
    }).ms,
  );
  fs.rmSync(indexPath(data, session), { force: true });
  const built = timed(() => loadSessionIndex(data, session));
  rows.indexBuild!.push(built.ms);
  records = built.value.entries.length;
  const loaded = timed(() => loadSessionIndex(data, session));
  rows.indexLoad!.push(loaded.ms);
  const structure = timed(() => assemble(loaded.value, { conversation: session, throughSeq: loaded.value.throughSeq }));
  rows.assemble!.push(structure.ms);
  nodes = structure.value.nodes.length;
  fs.rmSync(conversationFolder(data, session), { recursive: true, force: true });
  rows.parse!.push(timed(() => parseSession(data, session)).ms);
  const folded = timed(() => readChain(data, session));
  rows.fold!.push(folded.ms);
  // A reader builds the parent map once; each talk is then a walk of its own nodes.
  const children = new Map<string, string[]>();
  for (const node of folded.value.nodes.values()) if (node.parent !== undefined) children.set(node.parent, [...(children.get(node.parent) ?? []), node.id]);
  const talks = [...folded.value.nodes.values()].filter((node) => node.kind === 'talk');
  const lookups: number[] = [];
  for (let sample = 0; sample < 1000; sample++) {
    const talk = talks[(sample * 7919) % talks.length]!;
    lookups.push(
      timed(() => {
        const subtree: string[] = [];
        const stack = [talk.id];
        while (stack.length > 0) {
          const id = stack.pop()!;
          subtree.push(id);
          stack.push(...(children.get(id) ?? []));
        }
        return subtree;
      }).ms,
    );
  }
  rows.subtree!.push(median(lookups));
  // One more turn: the incremental cost of the next round.
  const extra = new Transcript({ session, start: '2027-01-01T00:00:00.000Z' });
  turn(extra, turns + run);
  const before = fs.statSync(transcript).size;
  fs.appendFileSync(transcript, extra.text());
  collectAll({ data, adapter: claudeCodeAdapter, discovery: discoverSessions(root), selected: () => true });
  rows.nextRound!.push(timed(() => parseSession(data, session)).ms);
  // Put the evidence back as it was, for the next run: the landed file of the extra turn goes too.
  fs.truncateSync(transcript, before);
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(transcript), { recursive: true });
  const t = new Transcript({ session });
  for (let index = 0; index < turns; index++) turn(t, index);
  fs.writeFileSync(transcript, t.text());
  collectAll({ data, adapter: claudeCodeAdapter, discovery: discoverSessions(root), selected: () => true });
  fs.writeFileSync(path.join(work, 'complete'), '');
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);
const ms = (name: string): number => median(rows[name]!);
const table = [
  `# Assembly benchmark, ${new Date().toISOString().slice(0, 10)}`,
  '',
  `Machine: ${os.cpus()[0]?.model ?? 'unknown'}, ${os.availableParallelism()} cores; Node ${process.version}. Command: node --import tsx bench/assembly.ts --turns ${turns} --runs ${runs}`,
  '',
  `One session: ${turns} turns, ${records} records, ${mb(landedBytes)} MB landed, ${mb(sdBytes)} MB of .sd; its structure has **${nodes} nodes**. Median of ${runs} runs.`,
  '',
  '| step | median | rate | × baseline |',
  '| --- | ---: | ---: | ---: |',
  `| baseline: read + SHA-256 of the landed and .sd bytes | ${ms('baseline').toFixed(1)} ms | ${mb(((landedBytes + sdBytes) / ms('baseline')) * 1000)} MB/s | 1.00 |`,
  `| index built from every .sd | ${ms('indexBuild').toFixed(1)} ms | ${mb((sdBytes / ms('indexBuild')) * 1000)} MB/s of .sd | ${(ms('indexBuild') / ms('baseline')).toFixed(2)} |`,
  `| index loaded from its saved file | ${ms('indexLoad').toFixed(1)} ms | | ${(ms('indexLoad') / ms('baseline')).toFixed(2)} |`,
  `| assembly: the eight stages | ${ms('assemble').toFixed(1)} ms | ${mb((landedBytes / ms('assemble')) * 1000)} MB/s of landed | ${(ms('assemble') / ms('baseline')).toFixed(2)} |`,
  `| parse: index, assembly and round 1 written | ${ms('parse').toFixed(1)} ms | ${mb((landedBytes / ms('parse')) * 1000)} MB/s of landed | ${(ms('parse') / ms('baseline')).toFixed(2)} |`,
  `| fold: read, check and fold the chain | ${ms('fold').toFixed(1)} ms | | ${(ms('fold') / ms('baseline')).toFixed(2)} |`,
  `| one talk's subtree, parent map built | ${(ms('subtree') * 1000).toFixed(1)} µs | | |`,
  `| next round after one more turn (parse) | ${ms('nextRound').toFixed(1)} ms | | ${(ms('nextRound') / ms('baseline')).toFixed(2)} |`,
  '',
  `Targets (issue 3): fold under 300 ms — ${ms('fold') < 300 ? 'met' : 'not met'} (${ms('fold').toFixed(0)} ms); one talk's subtree in microseconds — ${ms('subtree') < 1 ? 'met' : 'not met'} (${(ms('subtree') * 1000).toFixed(1)} µs).`,
  '',
].join('\n');
const target = writeResults('assembly', table);
process.stdout.write(`${table}\nwritten to ${path.relative(process.cwd(), target)}\n`);
