// The collection benchmark: `npm run bench [-- --sizes 20MB,200MB --runs 3 --seed 1]`.
//
// For each size it generates a seeded corpus once, into
// bench/work/corpus-<size>-<seed>/projects (kept and reused while its
// complete.json says it was finished by the same generator), then measures on
// those bytes, in every run:
//
//   baselines  sha256sum (GNU coreutils) of every file; read + SHA-256 in Node
//              (1 MiB reads); cp -r of the corpus into a fresh folder
//   ours       land (collectAll, no .sd); land + .sd (collectAll's default);
//              a second collect on that data with nothing changed;
//              `sessionizer collect --once` as a person runs it: the command's
//              launcher in a process of its own, timed from outside like the
//              GNU baselines (Node's start included), on every core;
//              one appended line in a copy of the biggest main transcript
//
// Every Node step runs in a fresh child process (bench/step.ts), so its time
// and its peak memory are its own. The page cache is warm for every step
// alike (the corpus is read once before the first run), and `sync` runs after
// each step so that no step pays for the write-back of the one before. Each
// data folder is deleted after its step. Medians are reported with ratios to
// the baselines and peak memory over the runs; the table goes to stdout and to
// bench/results/collect-<YYYY-MM-DD>.md (writeResults: a later run of the same day gets a file of its own).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bench, biggestMainTranscript, corpusFor, log, measuredTree, nextLine, option, repository, runsOption, sizesOption, work, writeResults } from './corpus.ts';
import { filesUnder } from '../scripts/files-under.ts';
import { median } from './median.ts';
import { timed as timedWithMemory } from './timed.ts';

const sizes = sizesOption('200MB');
const runs = runsOption('3');
const seed = option('seed', '1');

interface Measured {
  /** Time of the step's work alone. */
  ms: number;
  /** Time around the child process: its start and module loading included. */
  wallMs?: number;
  /** Processor time of the step's work, every thread, user and system. */
  cpu_ms?: number;
  max_rss_kb?: number;
  records?: number;
  files?: number;
  bytes?: number;
}

/** An external command, timed from outside. */
function timed(command: string, args: string[]): Measured {
  const started = performance.now();
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status ?? result.signal}`);
  return { ms };
}

const launcher = path.join(repository, 'src', 'cli', 'sessionizer.mjs');

/**
 * `sessionizer collect --once` through the command's launcher, which runs
 * the bundle it keeps for the source (src/cli/kept-command.mjs) and starts
 * that bundle's workers. Run through bench/step.ts under tsx, the command
 * would start its workers through the TypeScript loader instead, a cost no
 * one running the command pays.
 */
function collectOnceCommand(source: string, data: string): Measured {
  const run = timedWithMemory(process.execPath, [launcher, 'collect', '--once', '--source', source, '--data', data, '--json']);
  const { totals } = JSON.parse(run.stdout) as { totals: { files: number; records: number; bytes: number } };
  return { ms: run.seconds * 1000, cpu_ms: run.cpuSeconds * 1000, max_rss_kb: run.peakKb, ...totals };
}

/** One bench/step.ts step in a fresh Node process. */
function step(name: string, ...args: string[]): Measured {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(bench, 'step.ts'), name, ...args], { cwd: repository, encoding: 'utf8', maxBuffer: 1 << 26 });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`bench step ${name} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stderr}`);
  const last = result.stdout.trim().split('\n').at(-1) ?? '';
  return { ...(JSON.parse(last) as Measured), wallMs };
}

function sync(): void {
  spawnSync('sync', [], { stdio: 'ignore' });
}

function remove(folder: string): void {
  fs.rmSync(folder, { recursive: true, force: true });
}


function bytesUnder(folder: string, filter: (file: string) => boolean = () => true): number {
  let total = 0;
  for (const file of filesUnder(folder)) if (filter(file)) total += fs.statSync(file).size;
  return total;
}


const ROWS = [
  { key: 'sha256sum', label: 'baseline: sha256sum (GNU, every file)' },
  { key: 'hash', label: 'baseline: read + SHA-256 (Node, 1 MiB reads)' },
  { key: 'copy', label: 'baseline: copy (cp -r)' },
  { key: 'land', label: 'land (collectAll, no .sd)' },
  { key: 'collect', label: '**land + .sd** (collectAll default)' },
  { key: 'again', label: 'second collect (nothing changed)' },
  { key: 'cli', label: '`sessionizer collect --once`, the command as a person runs it (every core, Node\'s start included)' },
  { key: 'append', label: 'append one line, collect again' },
] as const;
type Row = (typeof ROWS)[number]['key'];

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const seconds = (ms: number): string => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`);

function measureSize(size: string): string {
  const corpus = corpusFor(size, seed);
  const { root, summary } = corpus;
  const files = filesUnder(root);
  const sourceBytes = files.reduce((total, file) => total + fs.statSync(file).size, 0);
  const biggest = biggestMainTranscript(root, files);
  const records = recordsIn(files);
  const list = path.join(work, `files-${size}-${seed}.list`);
  fs.writeFileSync(list, files.join('\0'));
  const measured = new Map<Row, Measured[]>(ROWS.map(({ key }) => [key, []]));
  let dataBytes: { total: number; landed: number; sd: number } | undefined;

  const loadBefore = os.loadavg()[0]!;
  // Into the page cache before anything is timed, tsx's transform cache
  // warm, and the command's bundle made for this source (as npm ci's prepare
  // script makes it).
  step('hash', root);
  spawnSync(process.execPath, [launcher, '--help'], { stdio: 'ignore' });

  const scratch = path.join(work, `run-${process.pid}`);
  try {
    for (let run = 1; run <= runs; run++) {
      log(`${size}: run ${run} of ${runs}`);
      remove(scratch);
      fs.mkdirSync(scratch, { recursive: true });
      sync();

      measured.get('sha256sum')!.push(timed('sh', ['-c', `xargs -0 sha256sum < '${list}' > /dev/null`]));
      measured.get('hash')!.push(step('hash', root));
      const copy = path.join(scratch, 'copy');
      measured.get('copy')!.push(timed('cp', ['-r', root, copy]));
      remove(copy);
      sync();

      const landed = path.join(scratch, 'land');
      measured.get('land')!.push(expectAll(step('land', root, landed), records, 'land'));
      remove(landed);
      sync();

      const data = path.join(scratch, 'data');
      measured.get('collect')!.push(expectAll(step('collect', root, data), records, 'land + .sd'));
      sync();
      if (run === 1) {
        const landedBytes = bytesUnder(data, (file) => file.endsWith('.jsonl'));
        const sdBytes = bytesUnder(data, (file) => file.endsWith('.sd'));
        dataBytes = { total: bytesUnder(data), landed: landedBytes, sd: sdBytes };
      }
      const again = step('collect', root, data);
      if (again.records !== 0) throw new Error(`a second collect with nothing changed landed ${again.records} records`);
      measured.get('again')!.push(again);
      remove(data);
      sync();

      const cliData = path.join(scratch, 'cli');
      measured.get('cli')!.push(expectAll(collectOnceCommand(root, cliData), records, 'collect --once'));
      remove(cliData);
      sync();

      // The biggest session's main transcript, copied into a source root of
      // its own (the corpus itself is never touched), landed once, then one
      // line longer and collected again.
      const appendRoot = path.join(scratch, 'append-source');
      const appendData = path.join(scratch, 'append-data');
      const copyOf = path.join(appendRoot, biggest.relative);
      fs.mkdirSync(path.dirname(copyOf), { recursive: true });
      fs.copyFileSync(biggest.file, copyOf);
      step('collect', appendRoot, appendData);
      fs.appendFileSync(copyOf, nextLine(copyOf, `${seed}:${run}`));
      sync();
      const appended = step('collect', appendRoot, appendData);
      if (appended.records !== 1) throw new Error(`one appended line landed ${appended.records} records, not 1`);
      measured.get('append')!.push(appended);
      remove(appendRoot);
      remove(appendData);
      sync();
    }
  } finally {
    remove(scratch);
  }

  const loadAfter = os.loadavg()[0]!;
  const time = (row: Row): number => median(measured.get(row)!.map((entry) => entry.ms));
  const cpuTime = (row: Row): number | undefined => {
    const values = measured.get(row)!.flatMap((entry) => (entry.cpu_ms !== undefined ? [entry.cpu_ms] : []));
    return values.length > 0 ? median(values) : undefined;
  };
  const peak = (row: Row): number => Math.max(0, ...measured.get(row)!.map((entry) => entry.max_rss_kb ?? 0));
  const hash = time('hash');
  const hashAndCopy = hash + time('copy');
  const rowBytes = (row: Row): number => (row === 'append' ? biggest.size : sourceBytes);
  const startup = median(ROWS.flatMap(({ key }) => measured.get(key)!).flatMap((entry) => (entry.wallMs !== undefined ? [entry.wallMs - entry.ms] : [])));

  const lines = [
    `## ${size} corpus, seed ${seed}`,
    '',
    `${summary.files} files, ${summary.sessions} sessions, ${records} records, ${mb(sourceBytes)}; largest source file ${mb(summary.largestFile)} (the biggest session's main transcript). ` +
      `Median of ${runs} run${runs === 1 ? '' : 's'}; peak RSS is the maximum over the runs.` +
      (corpus.generatedMs !== undefined ? ` The corpus was generated in ${seconds(corpus.generatedMs)}.` : ''),
    '',
    '| step | median | processor time | MB/s | × read + SHA-256 | × (read + SHA-256 + copy) | peak RSS | largest source file |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const { key, label } of ROWS) {
    const ms = time(key);
    const rss = peak(key);
    lines.push(
      `| ${label} | ${seconds(ms)} | ${cpuTime(key) !== undefined ? seconds(cpuTime(key)!) : '-'} | ${(rowBytes(key) / 1e6 / (ms / 1000)).toFixed(0)} | ${(ms / hash).toFixed(2)} | ${(ms / hashAndCopy).toFixed(2)} | ` +
        `${rss > 0 ? `${(rss / 1024).toFixed(0)} MB` : '-'} | ${rss > 0 ? mb(key === 'append' ? biggest.size : summary.largestFile) : ''} |`,
    );
  }
  const collectRatio = time('collect') / hash;
  const idle = peak('hash') / 1024;
  lines.push(
    '',
    '| target (issue) | measured | met |',
    '| --- | --- | :---: |',
    `| land + .sd within 2× of read + SHA-256 | ${collectRatio.toFixed(2)}× (${seconds(time('collect'))} against ${seconds(hash)}); ${(time('collect') / hashAndCopy).toFixed(2)}× read + SHA-256 + copy | ${collectRatio <= 2 ? 'yes' : 'no'} |`,
    `| collect --once (every core) within 2× of GNU sha256sum + cp -r | ${(time('cli') / (time('sha256sum') + time('copy'))).toFixed(2)}× (${seconds(time('cli'))} against ${seconds(time('sha256sum') + time('copy'))}) | ${time('cli') / (time('sha256sum') + time('copy')) <= 2 ? 'yes' : 'no'} |`,
    `| memory bounded independent of file size | land + .sd peaks at ${(peak('collect') / 1024).toFixed(0)} MB RSS (${(peak('collect') / 1024 - idle).toFixed(0)} MB above the hashing process's ${idle.toFixed(0)} MB) with a largest source file of ${mb(summary.largestFile)}; every core: ${(peak('cli') / 1024).toFixed(0)} MB | ${sizes.length > 1 ? 'see the sizes compared below' : 'compare sizes'} |`,
    '',
    `Notes. MB/s is source bytes over the median time: the whole corpus (${mb(sourceBytes)}), except for the appended line, whose source is the ${mb(biggest.size)} transcript copied into a root of its own, landed once, then collected again after one line was appended (exactly 1 record landed in every run). ` +
      `Times of the other Node steps are measured inside their process; starting Node with tsx and loading the modules adds a median ${seconds(startup)} more to each. ` +
      `sha256sum, cp and \`sessionizer collect --once\` are timed from outside, their process's start included; the memory and processor time of sha256sum and cp are not measured, the command's are (GNU time). ` +
      `Processor time is user and system time of every thread of the step's process over its work: on a shared machine it moves far less than the time on the clock. ` +
      `The machine's one-minute load average was ${loadBefore.toFixed(1)} when this size began and ${loadAfter.toFixed(1)} when it ended, on ${os.availableParallelism()} cores: other work shared them, so the absolute times are noisy and the ratios within the run are what matter.` +
      (dataBytes ? ` The data folder after land + .sd holds ${mb(dataBytes.total)}: ${mb(dataBytes.landed)} landed, ${mb(dataBytes.sd)} of .sd.` : ''),
  );
  results.push({ size, sourceBytes, largestFile: summary.largestFile, collectRss: peak('collect'), cliRss: peak('cli'), idleRss: peak('hash') });
  return lines.join('\n');
}

/** Records a full landing must land: a line of every append source, one document of every other file. */
function recordsIn(files: string[]): number {
  let records = 0;
  for (const file of files) {
    if (!file.endsWith('.jsonl')) {
      records++;
      continue;
    }
    const content = fs.readFileSync(file);
    for (let at = content.indexOf(0x0a); at >= 0; at = content.indexOf(0x0a, at + 1)) records++;
  }
  return records;
}

function expectAll(measured: Measured, expected: number, what: string): Measured {
  if (measured.records !== expected) throw new Error(`${what} landed ${measured.records} records; the corpus has ${expected}`);
  return measured;
}

const results: { size: string; sourceBytes: number; largestFile: number; collectRss: number; cliRss: number; idleRss: number }[] = [];
const tree = measuredTree();
fs.mkdirSync(work, { recursive: true });
const sections = sizes.map(measureSize);
if (results.length > 1) {
  sections.push(
    [
      '## Memory across sizes',
      '',
      '| corpus | largest source file | land + .sd peak RSS | collect --once (every core) peak RSS | hashing process |',
      '| --- | ---: | ---: | ---: | ---: |',
      ...results.map((entry) => `| ${entry.size} | ${mb(entry.largestFile)} | ${(entry.collectRss / 1024).toFixed(0)} MB | ${(entry.cliRss / 1024).toFixed(0)} MB | ${(entry.idleRss / 1024).toFixed(0)} MB |`),
    ].join('\n'),
  );
}

// The day in UTC, as the file's name has it (writeResults).
const day = new Date().toISOString().slice(0, 10);
const cpu = os.cpus()[0]?.model.trim() ?? 'unknown processor';
const header = [
  `# Collection benchmark, ${day}`,
  '',
  `Machine: ${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory; Node ${process.version}; ${os.type()} ${os.release()}.`,
  tree,
  `Command: \`npm run bench -- --sizes ${sizes.join(',')} --runs ${runs} --seed ${seed}\` (seed ${seed}, ${runs} run${runs === 1 ? '' : 's'}).`,
  '',
].join('\n');
const table = `${header}\n${sections.join('\n\n')}\n`;
const target = writeResults('collect', table);
process.stdout.write(`${table}\nwritten to ${path.relative(process.cwd(), target)}\n`);
