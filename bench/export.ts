// The export benchmark (issues 5 and 7), part of `npm run bench`:
//
//   node --import tsx bench/export.ts [--sizes 20MB,200MB,1GB] [--runs 3] [--seed 1]
//
// For each size, on the seeded corpus of the collection benchmark, in the same run:
//   baselines  read + SHA-256 of the sources (bench/step.ts hash), and GNU
//              `tar --zstd -cf` of the sources (zstd level 3, as ours)
//   prepare    `npm ci`'s prepare script (scripts/prepare.ts) with nothing
//              kept before it: the command's bundle and the site's renderer,
//              made once for the code (src/cli/kept-command.mjs,
//              src/site/generator/site.ts), as a fresh clone has them after `npm ci`
//   first      `sessionizer export --archive --json` on a fresh data folder
//              right after that, as a person runs it; its --json report
//              times every step (collect,
//              parse, bundle, site when there is one, manifest, archive) and
//              gives the process's peak memory at the end of each
//   second     one line appended to one conversation, then the same export
//              again into the same folder: once for a typical conversation (the
//              median main transcript) and once for the biggest (a fifth of
//              the corpus), the worst case; their sites render with the
//              renderer the first export's build kept
//   archive    the .tar.zst step alone on the finished export folder, beside
//              GNU `tar --zstd -cf` of that same folder
//   verify     `sessionizer verify --deep` of the export folder and of its
//              archive (one stream, nothing extracted), beside GNU
//              `tar --zstd -xf` of the archive then `sha256sum -c` of its manifest
//   redaction  `sessionizer export --redact` on the data folder the runs left,
//              beside `sessionizer export` on it into a new folder (the two
//              differ by the redaction alone); and the scan alone
//              (bench/step.ts scan) beside secretlint's preset alone over the
//              same landed files (bench/step.ts secretlint). Sizes under 1 GB.
// Each process is timed from outside with GNU time (wall seconds and peak
// memory). A 1 GB size gets one run, the others `--runs`. The sources are a
// copy of the corpus (untimed), so appending never touches the cached corpus.
// Targets: whole export within 4x of `tar --zstd -c` of the sources; cost
// growing linearly with size; a second export after a one-conversation change
// under 10% of the first; the archive step within 1.5x of GNU tar.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseSize } from '../scripts/generate-corpus.ts';
import { filesUnder } from '../scripts/files-under.ts';
import { forgetKeptRenderers } from '../src/site/generator/kept-renderer.ts';
import { bench, corpusFor, log, mainTranscripts, measuredTree, nextLine, option, repository, runsOption, sizesOption, work, writeResults } from './corpus.ts';
import { median } from './median.ts';
import { folderBytes, timed as timedIn, type Timed } from './timed.ts';

const sizes = sizesOption('20MB,200MB,1GB');
const runs = runsOption('3');
const seed = option('seed', '1');
const launcher = path.join(repository, 'src', 'cli', 'sessionizer.mjs');

interface StepTiming {
  readonly step: string;
  readonly ms: number;
  readonly bytes: number;
  readonly peak_rss_bytes: number;
}

/** A command timed by GNU time, run from the repository. */
function timed(command: string, args: string[]): Timed {
  return timedIn(command, args, repository);
}

function sync(): void {
  spawnSync('sync', [], { stdio: 'ignore' });
}

interface Exported extends Timed {
  readonly steps: StepTiming[];
  readonly reused: number;
  readonly copied: number;
  readonly unchanged: number;
}

function exportOnce(sources: string, scratch: string): Exported {
  const run = timed(process.execPath, [launcher, 'export', '--source', sources, '--data', path.join(scratch, 'data'), '--out', path.join(scratch, 'export'), '--archive', path.join(scratch, 'export.tar.zst'), '--json']);
  const report = JSON.parse(run.stdout) as { steps: StepTiming[]; reused_files: number; copied_files: number; unchanged_conversations: number };
  // The peak is GNU time's, that of the largest single process, as every
  // other row's; the steps' rows give the export's own, in which the site
  // step's is the sum of its renderer children's peaks (they run at once).
  return { ...run, steps: report.steps, reused: report.reused_files, copied: report.copied_files, unchanged: report.unchanged_conversations };
}

interface SizeResult {
  readonly size: string;
  readonly sourceBytes: number;
  readonly exportBytes: number;
  readonly archiveBytes: number;
  /** Bytes of landed files the redaction rows scanned; 0 when they were not measured. */
  readonly landedBytes: number;
  readonly runs: number;
  readonly rows: Map<string, Timed[]>;
  readonly steps: Map<string, StepTiming[]>;
  readonly second: { typical: Exported[]; biggest: Exported[]; typicalBytes: number; biggestBytes: number };
}

function measureSize(size: string): SizeResult {
  const { root } = corpusFor(size, seed);
  const files = filesUnder(root);
  const sourceBytes = files.reduce((total, file) => total + fs.statSync(file).size, 0);
  const transcripts = mainTranscripts(root, files);
  const typical = transcripts[Math.floor(transcripts.length / 2)]!;
  const biggest = transcripts.at(-1)!;
  const sizeRuns = parseSize(size) >= 1e9 ? 1 : runs;
  const rows = new Map<string, Timed[]>(['hash', 'tarSources', 'prepare', 'first', 'archive', 'tarExport', 'verifyFolder', 'verifyArchive', 'extractAndCheck', 'plainAgain', 'redacted', 'secretlint', 'scan'].map((key) => [key, []]));
  const steps = new Map<string, StepTiming[]>();
  const second = { typical: [] as Exported[], biggest: [] as Exported[], typicalBytes: typical.size, biggestBytes: biggest.size };
  let exportBytes = 0;
  let archiveBytes = 0;
  let landedBytes = 0;
  const scratch = path.join(work, `export-run-${process.pid}`);
  try {
    for (let run = 1; run <= sizeRuns; run++) {
      log(`export ${size}: run ${run} of ${sizeRuns}`);
      fs.rmSync(scratch, { recursive: true, force: true });
      fs.mkdirSync(scratch, { recursive: true });
      const sources = path.join(scratch, 'projects');
      spawnSync('cp', ['-r', root, sources]);
      sync();
      rows.get('hash')!.push(timed(process.execPath, ['--import', 'tsx', path.join(bench, 'step.ts'), 'hash', sources]));
      rows.get('tarSources')!.push(timed('tar', ['--zstd', '-cf', path.join(scratch, 'sources.tar.zst'), '-C', scratch, 'projects']));
      fs.rmSync(path.join(scratch, 'sources.tar.zst'));
      sync();

      // As on a fresh clone: no site renderer and no bundle of the command
      // kept, until `npm ci` runs its prepare script.
      forgetKeptRenderers();
      fs.rmSync(path.join(repository, 'node_modules', '.cache', 'sessionizer-command'), { recursive: true, force: true });
      rows.get('prepare')!.push(timed(process.execPath, ['--import', 'tsx', path.join(repository, 'scripts', 'prepare.ts')]));
      const first = exportOnce(sources, scratch);
      rows.get('first')!.push(first);
      for (const timing of first.steps) steps.set(timing.step, [...(steps.get(timing.step) ?? []), timing]);
      exportBytes = folderBytes(path.join(scratch, 'export'));
      archiveBytes = fs.statSync(path.join(scratch, 'export.tar.zst')).size;
      sync();

      for (const [which, transcript] of [['typical', typical], ['biggest', biggest]] as const) {
        const copy = path.join(sources, transcript.relative);
        fs.appendFileSync(copy, nextLine(copy, `${seed}:${run}:${which}`));
        sync();
        const again = exportOnce(sources, scratch);
        if (again.unchanged === 0) throw new Error('the second export re-assembled every conversation');
        second[which].push(again);
        sync();
      }

      rows.get('archive')!.push(timed(process.execPath, ['--import', 'tsx', path.join(bench, 'step.ts'), 'archive', path.join(scratch, 'export'), path.join(scratch, 'again.tar.zst')]));
      rows.get('tarExport')!.push(timed('tar', ['--zstd', '-cf', path.join(scratch, 'gnu-export.tar.zst'), '-C', scratch, 'export']));
      sync();
      rows.get('verifyFolder')!.push(timed(process.execPath, [launcher, 'verify', path.join(scratch, 'export'), '--deep']));
      rows.get('verifyArchive')!.push(timed(process.execPath, [launcher, 'verify', path.join(scratch, 'export.tar.zst'), '--deep']));
      const extracted = path.join(scratch, 'extracted');
      fs.mkdirSync(extracted);
      rows.get('extractAndCheck')!.push(timed('sh', ['-c', 'tar --zstd -xf "$1" -C "$2" && cd "$2/export" && sha256sum -c --quiet manifest-sha256.txt', 'extract-and-check', path.join(scratch, 'export.tar.zst'), extracted]));
      fs.rmSync(extracted, { recursive: true, force: true });
      sync();
      if (sizeRuns > 1) {
        const data = path.join(scratch, 'data');
        rows.get('plainAgain')!.push(timed(process.execPath, [launcher, 'export', '--source', sources, '--data', data, '--out', path.join(scratch, 'plain'), '--json']));
        rows.get('redacted')!.push(timed(process.execPath, [launcher, 'export', '--source', sources, '--data', data, '--out', path.join(scratch, 'redacted'), '--redact', '--json']));
        rows.get('secretlint')!.push(timed(process.execPath, ['--import', 'tsx', path.join(bench, 'step.ts'), 'secretlint', data]));
        rows.get('scan')!.push(timed(process.execPath, ['--import', 'tsx', path.join(bench, 'step.ts'), 'scan', data]));
        if (run === 1) landedBytes = filesUnder(data).filter((file) => file.endsWith('.jsonl')).reduce((total, file) => total + fs.statSync(file).size, 0);
      }
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return { size, sourceBytes, exportBytes, archiveBytes, landedBytes, runs: sizeRuns, rows, steps, second };
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const rate = (bytes: number, seconds: number): string => (seconds > 0 ? (bytes / 1e6 / seconds).toFixed(0) : '-');
const seconds = (list: Timed[]): number => median(list.map((entry) => entry.seconds));
// The archive step as an export runs it, already started: bench/step.ts times
// it inside its process. Node's start and tsx's loading of the modules, about
// half a second, are paid once per export, not by the step.
const archiveStepSeconds = (list: Timed[]): number => median(list.map((entry) => (JSON.parse(entry.stdout) as { ms: number }).ms / 1000));
const cpu = (list: Timed[]): number => median(list.map((entry) => entry.cpuSeconds));
const peak = (list: Timed[]): string => `${(Math.max(...list.map((entry) => entry.peakKb)) / 1024).toFixed(0)} MB`;

function section(result: SizeResult): string[] {
  const row = (key: string): Timed[] => result.rows.get(key)!;
  const tar = seconds(row('tarSources'));
  const first = seconds(row('first'));
  const lines = [
    `## ${result.size} corpus, seed ${seed}`,
    '',
    `Sources ${mb(result.sourceBytes)}; export folder ${mb(result.exportBytes)}; archive ${mb(result.archiveBytes)} (ratio ${(result.exportBytes / result.archiveBytes).toFixed(2)}). Median of ${result.runs} run${result.runs === 1 ? '' : 's'}; peak memory is the maximum over the runs of the largest single process, and in the steps' rows the export's own report (the site step's: the sum of its renderer children's).`,
    '',
    '| step | median | MB/s of sources | × tar --zstd of sources | peak memory |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| baseline: read + SHA-256 of the sources | ${seconds(row('hash')).toFixed(2)} s | ${rate(result.sourceBytes, seconds(row('hash')))} | ${(seconds(row('hash')) / tar).toFixed(2)} | ${peak(row('hash'))} |`,
    `| baseline: tar --zstd -c of the sources | ${tar.toFixed(2)} s | ${rate(result.sourceBytes, tar)} | 1.00 | ${peak(row('tarSources'))} |`,
    `| npm ci's prepare script, before the first export: the command's bundle and the site's renderer, made once for the code, not for the data | ${seconds(row('prepare')).toFixed(2)} s | - | ${(seconds(row('prepare')) / tar).toFixed(2)} | ${peak(row('prepare'))} |`,
    `| **whole export** (every step below, process start included) | ${first.toFixed(2)} s | ${rate(result.sourceBytes, first)} | ${(first / tar).toFixed(2)} | ${peak(row('first'))} |`,
  ];
  for (const [name, timings] of result.steps) {
    const stepSeconds = median(timings.map((timing) => timing.ms)) / 1000;
    const bytes = Math.max(...timings.map((timing) => timing.bytes));
    lines.push(`| · ${name}${bytes > 0 ? ` (${mb(bytes)})` : ''} | ${stepSeconds.toFixed(2)} s | ${rate(result.sourceBytes, stepSeconds)} | ${(stepSeconds / tar).toFixed(2)} | ${(Math.max(...timings.map((timing) => timing.peak_rss_bytes)) / 1048576).toFixed(0)} MB so far |`);
  }
  for (const which of ['typical', 'biggest'] as const) {
    const list = result.second[which];
    const again = seconds(list);
    const changed = which === 'typical' ? result.second.typicalBytes : result.second.biggestBytes;
    const breakdown = list.at(-1)!.steps.map((timing) => `${timing.step} ${(timing.ms / 1000).toFixed(2)}`).join(', ');
    lines.push(`| second export, one line added to the ${which === 'typical' ? 'median-sized' : 'biggest'} conversation (${mb(changed)}); ${list.at(-1)!.copied} files copied, ${list.at(-1)!.reused} linked; steps in s: ${breakdown} | ${again.toFixed(2)} s | - | ${(again / tar).toFixed(2)} (${((100 * again) / first).toFixed(1)}% of the first) | ${peak(list)} |`);
  }
  const archive = archiveStepSeconds(row('archive'));
  const archiveProcess = seconds(row('archive'));
  const tarExport = seconds(row('tarExport'));
  lines.push(
    `| archive step alone, with no earlier archive to take frames from (frames of whole conversations, zstd-napi level 3 with checksums, compressed on every core), timed inside its process | ${archive.toFixed(2)} s | ${rate(result.exportBytes, archive)} of export | ${(archive / tarExport).toFixed(2)} × tar of the export | ${peak(row('archive'))} |`,
    `| the same as a process of its own, Node's start and the loading of the TypeScript modules included | ${archiveProcess.toFixed(2)} s | ${rate(result.exportBytes, archiveProcess)} of export | ${(archiveProcess / tarExport).toFixed(2)} × tar of the export | ${peak(row('archive'))} |`,
    `| baseline: tar --zstd -c of the export folder | ${tarExport.toFixed(2)} s | ${rate(result.exportBytes, tarExport)} of export | 1.00 | ${peak(row('tarExport'))} |`,
  );
  const check = seconds(row('extractAndCheck'));
  for (const [key, what] of [['verifyFolder', 'the export folder'], ['verifyArchive', 'the archive, one stream, nothing extracted']] as const) {
    const verify = seconds(row(key));
    lines.push(`| verify --deep of ${what}: every .sd derived and every conversation assembled again (CPU ${cpu(row(key)).toFixed(2)} s) | ${verify.toFixed(2)} s | ${rate(result.exportBytes, verify)} of export | ${(verify / check).toFixed(2)} × tar -x + sha256sum -c | ${peak(row(key))} |`);
  }
  lines.push(`| baseline: tar --zstd -xf of the archive, then sha256sum -c of its manifest (CPU ${cpu(row('extractAndCheck')).toFixed(2)} s) | ${check.toFixed(2)} s | ${rate(result.exportBytes, check)} of export | 1.00 | ${peak(row('extractAndCheck'))} |`);
  if (result.landedBytes > 0) {
    const plain = seconds(row('plainAgain'));
    const secretlint = seconds(row('secretlint'));
    lines.push(
      `| export into a new folder, data already collected and parsed | ${plain.toFixed(2)} s | ${rate(result.sourceBytes, plain)} | ${(plain / tar).toFixed(2)} | ${peak(row('plainAgain'))} |`,
      `| export --redact, the same | ${seconds(row('redacted')).toFixed(2)} s | ${rate(result.sourceBytes, seconds(row('redacted')))} | ${(seconds(row('redacted')) / plain).toFixed(2)} × the plain export | ${peak(row('redacted'))} |`,
      `| baseline: secretlint's recommended preset alone over the landed files | ${secretlint.toFixed(2)} s | ${rate(result.landedBytes, secretlint)} of landed | 1.00 | ${peak(row('secretlint'))} |`,
      `| redaction scan alone: every string of every record, secretlint and our rules | ${seconds(row('scan')).toFixed(2)} s | ${rate(result.landedBytes, seconds(row('scan')))} of landed | ${(seconds(row('scan')) / secretlint).toFixed(2)} × secretlint | ${peak(row('scan'))} |`,
    );
  }
  lines.push('');
  return lines;
}

const tree = measuredTree();
const results = sizes.map(measureSize);
const firstOf = (result: SizeResult): number => seconds(result.rows.get('first')!);
const tarOf = (result: SizeResult): number => seconds(result.rows.get('tarSources')!);
const secondOf = (result: SizeResult): number => seconds(result.second.typical);
const day = new Date().toISOString().slice(0, 10);
const verdict = (met: boolean): string => (met ? 'met' : '**not met**');
const table = [
  `# Export benchmark, ${day}`,
  '',
  `Machine: ${os.cpus()[0]?.model ?? 'unknown'}, ${os.availableParallelism()} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; Node ${process.version}; ${spawnSync('zstd', ['--version'], { encoding: 'utf8' }).stdout.trim()}.`,
  tree,
  `Command: \`node --import tsx bench/export.ts --sizes ${sizes.join(',')} --runs ${runs} --seed ${seed}\`. See bench/README.md for what each row measures.`,
  '',
  ...results.flatMap(section),
  '## Across sizes',
  '',
  '| size | whole export | seconds per 100 MB | × tar --zstd of sources | second export (median-sized conversation) | % of the first |',
  '| --- | ---: | ---: | ---: | ---: | ---: |',
  ...results.map((result) => `| ${result.size} | ${firstOf(result).toFixed(2)} s | ${((firstOf(result) * 1e8) / result.sourceBytes).toFixed(2)} | ${(firstOf(result) / tarOf(result)).toFixed(2)} | ${secondOf(result).toFixed(2)} s | ${((100 * secondOf(result)) / firstOf(result)).toFixed(1)}% |`),
  '',
  'Targets:',
  ...results.map((result) => `- ${result.size}: whole export within 4x of tar --zstd -c of the sources: ${verdict(firstOf(result) / tarOf(result) <= 4)} (${(firstOf(result) / tarOf(result)).toFixed(2)}x); second export under 10% of the first: ${verdict(secondOf(result) / firstOf(result) < 0.1)} (${((100 * secondOf(result)) / firstOf(result)).toFixed(1)}%); archive step within 1.5x of GNU tar: ${verdict(archiveStepSeconds(result.rows.get('archive')!) / seconds(result.rows.get('tarExport')!) <= 1.5)}.`),
  `- cost linear in size: seconds per 100 MB ${results.map((result) => ((firstOf(result) * 1e8) / result.sourceBytes).toFixed(2)).join(', ')} for ${results.map((result) => result.size).join(', ')}.`,
  '',
].join('\n');
const target = writeResults('export', table);
process.stdout.write(`${table}\nwritten to ${path.relative(process.cwd(), target)}\n`);
