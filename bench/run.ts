// The collection benchmark: `npm run bench [-- --sizes 20MB,200MB --runs 3 --seed 1]`.
//
// For each size it generates a seeded corpus once (kept in bench/work), then
// measures, in every run and on the same bytes:
//   baselines   sha256sum of every file (GNU coreutils); cp -r of the corpus;
//               read + SHA-256 in Node (OpenSSL)
//   ours        landing alone on one thread and on every core; `collect --once`
//               as a person runs it (landing and .sd); a second collect with
//               nothing new; a collect after one appended line
// Each of ours runs in a fresh process, so its time and peak memory are its
// own. The page cache is warm for every step alike. Medians are reported,
// with ratios to the baselines of the same run, and the table is written to
// bench/results/collect-<date>.md.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCorpus, parseSize, type CorpusSummary } from '../scripts/generate-corpus.ts';

const bench = path.dirname(fileURLToPath(import.meta.url));
const work = path.join(bench, 'work');

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
}

const sizes = option('sizes', '200MB').split(',').map((size) => size.trim());
const runs = Number(option('runs', '3'));
const seed = option('seed', '1');

interface Measured {
  ms: number;
  max_rss_kb?: number;
  records?: number;
}

function timed(command: string, args: string[]): Measured {
  const started = performance.now();
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}`);
  return { ms: performance.now() - started };
}

function step(name: string, ...args: string[]): Measured {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(bench, 'step.ts'), name, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`bench step ${name} failed:\n${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Measured;
}

function corpusFor(size: string): { root: string; summary: CorpusSummary } {
  const folder = path.join(work, `corpus-${size}-${seed}`);
  const marker = path.join(folder, 'complete.json');
  const root = path.join(folder, 'projects');
  if (fs.existsSync(marker)) return { root, summary: JSON.parse(fs.readFileSync(marker, 'utf8')) as CorpusSummary };
  process.stderr.write(`generating a ${size} corpus with seed ${seed} …\n`);
  const summary = generateCorpus({ out: root, bytes: parseSize(size), seed });
  fs.writeFileSync(marker, JSON.stringify(summary));
  return { root, summary };
}

function filesUnder(folder: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(full));
    else found.push(full);
  }
  return found;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function biggestMainTranscript(root: string): string {
  let biggest = '';
  let size = -1;
  for (const file of filesUnder(root)) {
    if (!/\/[0-9a-f-]{36}\.jsonl$/.test(file)) continue;
    const bytes = fs.statSync(file).size;
    if (bytes > size) [biggest, size] = [file, bytes];
  }
  return biggest;
}

const ROWS = [
  ['sha256sum', 'baseline: GNU sha256sum of every file'],
  ['copy', 'baseline: cp -r of the corpus'],
  ['hash', 'baseline: read + SHA-256 in Node (OpenSSL)'],
  ['land-1', 'land, one thread (no .sd)'],
  ['land-cores', 'land, every core (no .sd)'],
  ['collect', 'collect --once (land + .sd, every core)'],
  ['again', 'second collect, nothing changed'],
  ['append', 'collect after one appended line'],
] as const;
type Row = (typeof ROWS)[number][0];

const sections: string[] = [];
for (const size of sizes) {
  const { root, summary } = corpusFor(size);
  const files = filesUnder(root);
  const list = path.join(work, `files-${size}-${seed}.txt`);
  fs.writeFileSync(list, files.join('\0'));
  const measured = new Map<Row, Measured[]>(ROWS.map(([row]) => [row, []]));
  const cores = os.availableParallelism();
  for (let run = 1; run <= runs; run++) {
    process.stderr.write(`${size}: run ${run} of ${runs}\n`);
    const scratch = path.join(work, `run-${process.pid}`);
    fs.rmSync(scratch, { recursive: true, force: true });
    fs.mkdirSync(scratch, { recursive: true });
    try {
      measured.get('sha256sum')!.push(timed('sh', ['-c', `xargs -0 sha256sum < '${list}' > /dev/null`]));
      measured.get('copy')!.push(timed('cp', ['-r', root, path.join(scratch, 'copy')]));
      fs.rmSync(path.join(scratch, 'copy'), { recursive: true, force: true });
      measured.get('hash')!.push(step('hash', root));
      measured.get('land-1')!.push(step('land', root, path.join(scratch, 'land-1'), '1'));
      fs.rmSync(path.join(scratch, 'land-1'), { recursive: true, force: true });
      measured.get('land-cores')!.push(step('land', root, path.join(scratch, 'land-cores'), String(cores)));
      fs.rmSync(path.join(scratch, 'land-cores'), { recursive: true, force: true });
      const data = path.join(scratch, 'data');
      measured.get('collect')!.push(step('collect', root, data));
      measured.get('again')!.push(step('collect', root, data));
      // One appended line in the largest transcript, taken back afterwards so
      // the cached corpus stays as it was generated.
      const transcript = biggestMainTranscript(root);
      const before = fs.statSync(transcript).size;
      fs.appendFileSync(transcript, `${JSON.stringify({ type: 'user', uuid: `bench-${run}`, message: { role: 'user', content: 'one more line' } })}\n`);
      try {
        const appended = step('collect', root, data);
        if (appended.records !== 1) throw new Error(`one appended line landed ${appended.records} records`);
        measured.get('append')!.push(appended);
      } finally {
        fs.truncateSync(transcript, before);
      }
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }

  const mb = summary.bytes / 1e6;
  const time = (row: Row): number => median(measured.get(row)!.map((entry) => entry.ms));
  const sha256sumAndCopy = time('sha256sum') + time('copy');
  const hashAndCopy = time('hash') + time('copy');
  const lines = [
    `## ${size} corpus (seed ${seed})`,
    '',
    `${summary.files} files, ${summary.sessions} sessions, ${mb.toFixed(1)} MB; largest file ${(summary.largestFile / 1e6).toFixed(1)} MB. Median of ${runs} runs.`,
    '',
    '| step | median | MB/s | × (sha256sum + cp) | × (Node read + SHA-256 + cp) | peak memory |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const [row, label] of ROWS) {
    const ms = time(row);
    const peak = Math.max(...measured.get(row)!.map((entry) => entry.max_rss_kb ?? 0));
    const ours = !['sha256sum', 'copy', 'hash'].includes(row);
    lines.push(
      `| ${label} | ${(ms / 1000).toFixed(3)} s | ${row === 'again' || row === 'append' ? '-' : (mb / (ms / 1000)).toFixed(0)} | ${ours ? (ms / sha256sumAndCopy).toFixed(2) : '-'} | ${ours ? (ms / hashAndCopy).toFixed(2) : '-'} | ${peak > 0 ? `${(peak / 1024).toFixed(0)} MB` : '-'} |`,
    );
  }
  lines.push(
    '',
    `Baselines in the same run: sha256sum + cp ${(sha256sumAndCopy / 1000).toFixed(3)} s; Node read + SHA-256 + cp ${(hashAndCopy / 1000).toFixed(3)} s.`,
    `Target (issue 2): collect within 2x of reading, hashing and copying the same bytes, with memory bounded independent of file size.`,
  );
  sections.push(lines.join('\n'));
}

const cpu = os.cpus()[0]?.model ?? 'unknown processor';
const header = [
  `# Collection benchmark, ${new Date().toISOString().slice(0, 10)}`,
  '',
  `Machine: ${cpu}, ${os.availableParallelism()} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version}; ${os.type()} ${os.release()}.`,
  `Command: npm run bench -- --sizes ${sizes.join(',')} --runs ${runs} --seed ${seed}`,
  '',
].join('\n');
const table = `${header}\n${sections.join('\n\n')}\n`;
fs.mkdirSync(path.join(bench, 'results'), { recursive: true });
const target = path.join(bench, 'results', `collect-${new Date().toISOString().slice(0, 10)}.md`);
fs.writeFileSync(target, table);
process.stdout.write(`${table}\nwritten to ${path.relative(process.cwd(), target)}\n`);
