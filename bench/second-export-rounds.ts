// The second export after one line, for several trees in turn: the figure a
// one-off pair of `bench/export.ts` runs cannot settle on a shared machine,
// where one second export takes 1 to 1.6 s and the same tree's runs differ by
// more than the trees do.
//
//   node --import tsx bench/second-export-rounds.ts --rounds 12 NAME=TREE ...
//
// Each TREE is a checkout of this project with its `npm ci` done (its
// renderer and command bundle kept). Each gets a scratch folder of its own,
// bench/work/rounds-<NAME>, made once: a copy of the seeded 200 MB corpus
// and a first export of it. Each round then adds one line to the median
// main transcript of every tree's copy and exports it again, the trees in a
// rotating order, with `sync` before each export, so that every tree has had
// as many lines added when it is measured: the bundle step's time grows with
// the landed files each line adds. The medians of the rounds, whole and by
// step, are printed and written to bench/results/second-export-rounds-<date>.md
// (writeResults: a later run of the same day gets a file of its own).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { corpusFor, log, mainTranscripts, nextLine, option, treeCommit, work, writeResults } from './corpus.ts';
import { median } from './median.ts';

interface Tree {
  readonly name: string;
  readonly tree: string;
  readonly scratch: string;
}

const rounds = Number(option('rounds', '12'));
const trees: Tree[] = process.argv
  .slice(2)
  .filter((argument, index, all) => argument.includes('=') && all[index - 1] !== '--rounds')
  .map((argument) => {
    const [name, tree] = argument.split('=') as [string, string];
    return { name, tree: path.resolve(tree), scratch: path.join(work, `rounds-${name}`) };
  });
if (!Number.isInteger(rounds) || rounds < 1 || trees.length === 0) throw new Error('usage: bench/second-export-rounds.ts [--rounds N] NAME=TREE ...');

function exportOnce({ tree, scratch }: Tree): { seconds: number; steps: { step: string; ms: number }[] } {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [path.join(tree, 'src', 'cli', 'sessionizer.mjs'), 'export', '--source', path.join(scratch, 'projects'), '--data', path.join(scratch, 'data'), '--out', path.join(scratch, 'export'), '--archive', path.join(scratch, 'export.tar.zst'), '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) throw new Error(`${tree}: the export failed:\n${run.stderr}`);
  return { seconds, steps: (JSON.parse(run.stdout) as { steps: { step: string; ms: number }[] }).steps };
}

const { root } = corpusFor('200MB', '1');
for (const tree of trees) {
  if (fs.existsSync(path.join(tree.scratch, 'export'))) continue;
  log(`${tree.name}: the first export of a copy of the corpus`);
  fs.rmSync(tree.scratch, { recursive: true, force: true });
  fs.mkdirSync(tree.scratch, { recursive: true });
  spawnSync('cp', ['-r', root, path.join(tree.scratch, 'projects')]);
  exportOnce(tree);
}

// The trees are compared on copies that have had as many lines added: a copy
// that had lines added outside this benchmark exports a larger conversation
// each round, which made one tree look slower than another by its copy alone.
const copies = trees.map(({ name, scratch }) => ({ name, bytes: bytesUnder(path.join(scratch, 'projects')) }));
if (new Set(copies.map(({ bytes }) => bytes)).size > 1) {
  throw new Error(`the trees' copies of the corpus differ (${copies.map(({ name, bytes }) => `${name} ${bytes} bytes`).join(', ')}): lines were added to some outside this benchmark; remove their folders under bench/work/ to start them again`);
}

function bytesUnder(folder: string): number {
  return (fs.readdirSync(folder, { recursive: true }) as string[]).reduce((bytes, file) => {
    const stats = fs.statSync(path.join(folder, file));
    return stats.isFile() ? bytes + stats.size : bytes;
  }, 0);
}

const seconds = new Map<string, number[]>(trees.map(({ name }) => [name, []]));
const steps = new Map<string, Map<string, number[]>>(trees.map(({ name }) => [name, new Map()]));
for (let round = 0; round < rounds; round++) {
  for (let turn = 0; turn < trees.length; turn++) {
    const tree = trees[(round + turn) % trees.length]!;
    const projects = path.join(tree.scratch, 'projects');
    const files = (fs.readdirSync(projects, { recursive: true }) as string[]).map((file) => path.join(projects, file)).filter((file) => fs.statSync(file).isFile());
    const transcripts = mainTranscripts(projects, files);
    const changed = transcripts[Math.floor(transcripts.length / 2)]!.file;
    fs.appendFileSync(changed, nextLine(changed, `rounds:${round}`));
    spawnSync('sync');
    const run = exportOnce(tree);
    seconds.get(tree.name)!.push(run.seconds);
    for (const { step, ms } of run.steps) steps.get(tree.name)!.set(step, [...(steps.get(tree.name)!.get(step) ?? []), ms]);
    log(`round ${round + 1}, ${tree.name}: ${run.seconds.toFixed(3)} s (${run.steps.map(({ step, ms }) => `${step} ${ms}`).join(', ')})`);
  }
}

const stepNames = [...new Set(trees.flatMap(({ name }) => [...steps.get(name)!.keys()]))];
const lines = [
  `# The second export after one line, ${rounds} rounds in turn (${new Date().toISOString().slice(0, 10)})`,
  '',
  `Trees: ${trees.map(({ name, tree }) => `${name} = ${treeCommit(tree)}`).join('; ')}.`,
  'One line added to the median main transcript of the 200 MB corpus (seed 1) each round; medians, the process timed from outside, steps in milliseconds as the export reports them.',
  '',
  `| | ${trees.map(({ name }) => name).join(' | ')} |`,
  `| --- | ${trees.map(() => '---:').join(' | ')} |`,
  `| **second export** | ${trees.map(({ name }) => `${median(seconds.get(name)!).toFixed(3)} s`).join(' | ')} |`,
  ...stepNames.map((step) => `| · ${step} | ${trees.map(({ name }) => `${median(steps.get(name)!.get(step) ?? [0]).toFixed(0)}`).join(' | ')} |`),
  '',
  ...pairedRatios(),
];
const table = lines.join('\n');
const target = writeResults('second-export-rounds', table);
process.stdout.write(`${table}\nwritten to ${path.relative(process.cwd(), target)}\n`);

/**
 * Each tree against the first, round by round: the trees of a round run back
 * to back, so their ratio is freer of the machine's drift than the ratio of
 * medians. The median ratio is given with its 95% interval from the order
 * of the ratios (the ranks (n ± 1.96√n) / 2 from either end, rounded outwards, which hold the median with 95%
 * chance whatever the distribution), and how many rounds were slower.
 */
function pairedRatios(): string[] {
  const [first, ...others] = trees;
  if (first === undefined || others.length === 0) return [];
  const lines = [`Each tree against ${first.name}, round by round (its time over ${first.name}'s in the same round):`, '', '| | median ratio | 95% interval of the median | middle half | rounds slower |', '| --- | ---: | ---: | ---: | ---: |'];
  for (const { name } of others) {
    const ratios = seconds.get(name)!.map((value, round) => value / seconds.get(first.name)![round]!).sort((a, b) => a - b);
    const n = ratios.length;
    const low = Math.max(0, Math.floor(n / 2 - 0.98 * Math.sqrt(n)) - 1);
    const high = Math.min(n - 1, Math.ceil(n / 2 + 0.98 * Math.sqrt(n)));
    const quarter = (q: number): number => ratios[Math.min(n - 1, Math.floor(q * n))]!;
    lines.push(`| ${name} | ${median(ratios).toFixed(3)} | ${ratios[low]!.toFixed(3)}-${ratios[high]!.toFixed(3)} | ${quarter(0.25).toFixed(3)}-${quarter(0.75).toFixed(3)} | ${ratios.filter((ratio) => ratio > 1).length} of ${n} |`);
  }
  return [...lines, ''];
}
