// The export benchmark (issue 5): `node --import tsx bench/export.ts [--size 200MB] [--runs 3]`
// (part of `npm run bench`).
//
// On the same generated corpus as the collection benchmark, in the same run:
//   baseline  GNU `tar --zstd -cf` of the sources (zstd level 3, as ours)
//   export    `sessionizer export --archive` on a fresh data folder: collect,
//             parse, the bundle, the manifest and the .tar.zst, as a person runs it
//   archive   the .tar.zst step alone, on the finished export folder, beside
//             GNU `tar --zstd -cf` of that same folder
// Time and peak memory come from GNU time around each process. Targets: the
// whole export within 4x of `tar --zstd -c` of the sources, the archive step
// within 1.5x of `tar --zstd -c` of the same folder.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCorpus, parseSize } from '../scripts/generate-corpus.ts';
import { median } from './median.ts';
import { folderBytes, timed, type Timed } from './timed.ts';

const bench = path.dirname(fileURLToPath(import.meta.url));
const option = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
};
const size = option('size', '200MB');
const runs = Number(option('runs', '3'));
const seed = '1';
const work = path.join(bench, 'work');
const corpusFolder = path.join(work, `corpus-${size}-${seed}`);
const root = path.join(corpusFolder, 'projects');
if (!fs.existsSync(path.join(corpusFolder, 'complete.json'))) {
  fs.rmSync(corpusFolder, { recursive: true, force: true });
  fs.mkdirSync(corpusFolder, { recursive: true });
  const summary = generateCorpus({ out: root, bytes: parseSize(size), seed });
  fs.writeFileSync(path.join(corpusFolder, 'complete.json'), JSON.stringify(summary));
}
const launcher = path.join(bench, '..', 'src', 'cli', 'sessionizer.mjs');

const sourceBytes = folderBytes(root);
const rows: Record<string, Timed[]> = { tarSources: [], export: [], archive: [], tarExport: [] };
let exportBytes = 0;
let archiveBytes = 0;
let tarBytes = 0;
for (let run = 0; run < runs; run++) {
  process.stderr.write(`export: run ${run + 1} of ${runs}\n`);
  const scratch = path.join(work, `export-run-${process.pid}`);
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.mkdirSync(scratch, { recursive: true });
  try {
    rows.tarSources!.push(timed('tar', ['--zstd', '-cf', path.join(scratch, 'sources.tar.zst'), '-C', corpusFolder, 'projects']));
    tarBytes = fs.statSync(path.join(scratch, 'sources.tar.zst')).size;
    rows.export!.push(timed(process.execPath, [launcher, 'export', '--source', root, '--data', path.join(scratch, 'data'), '--out', path.join(scratch, 'export'), '--archive', path.join(scratch, 'export.tar.zst'), '--json']));
    exportBytes = folderBytes(path.join(scratch, 'export'));
    archiveBytes = fs.statSync(path.join(scratch, 'export.tar.zst')).size;
    fs.rmSync(path.join(scratch, 'export.tar.zst'));
    rows.archive!.push(timed(process.execPath, ['--import', 'tsx', '-e', `import('${path.join(bench, '..', 'src', 'bundle', 'archive.ts')}').then((m) => m.writeArchive(${JSON.stringify(path.join(scratch, 'export'))}, ${JSON.stringify(path.join(scratch, 'again.tar.zst'))}))`], path.join(bench, '..')));
    rows.tarExport!.push(timed('tar', ['--zstd', '-cf', path.join(scratch, 'gnu-export.tar.zst'), '-C', scratch, 'export']));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

const s = (name: string): number => median(rows[name]!.map((row) => row.seconds));
const peak = (name: string): string => `${(Math.max(...rows[name]!.map((row) => row.peakKb)) / 1024).toFixed(0)} MB`;
const mbps = (bytes: number, seconds: number): string => (bytes / 1e6 / seconds).toFixed(0);
const table = [
  `# Export benchmark, ${new Date().toISOString().slice(0, 10)}`,
  '',
  `Machine: ${os.cpus()[0]?.model ?? 'unknown'}, ${os.availableParallelism()} cores; Node ${process.version}; GNU tar with zstd ${spawnSync('zstd', ['--version'], { encoding: 'utf8' }).stdout.trim()}. Command: node --import tsx bench/export.ts --size ${size} --runs ${runs}. Median of ${runs} runs; peak memory is the maximum, from GNU time.`,
  '',
  `Sources: ${(sourceBytes / 1e6).toFixed(1)} MB (the collection benchmark's corpus, seed ${seed}). Export folder: ${(exportBytes / 1e6).toFixed(1)} MB. Archive: ${(archiveBytes / 1e6).toFixed(1)} MB, a compression ratio of ${(exportBytes / archiveBytes).toFixed(2)} (GNU tar --zstd of the sources: ${(sourceBytes / tarBytes).toFixed(2)}).`,
  '',
  '| step | median | MB/s | × baseline | peak memory |',
  '| --- | ---: | ---: | ---: | ---: |',
  `| baseline: tar --zstd -c of the sources | ${s('tarSources').toFixed(2)} s | ${mbps(sourceBytes, s('tarSources'))} of sources | 1.00 | ${peak('tarSources')} |`,
  `| whole export: collect, parse, bundle, manifest, archive | ${s('export').toFixed(2)} s | ${mbps(sourceBytes, s('export'))} of sources | ${(s('export') / s('tarSources')).toFixed(2)} | ${peak('export')} |`,
  `| baseline: tar --zstd -c of the export folder | ${s('tarExport').toFixed(2)} s | ${mbps(exportBytes, s('tarExport'))} of export | 1.00 | ${peak('tarExport')} |`,
  `| archive step alone (tar-stream + zstd-napi, level 3, checksums) | ${s('archive').toFixed(2)} s | ${mbps(exportBytes, s('archive'))} of export | ${(s('archive') / s('tarExport')).toFixed(2)} | ${peak('archive')} |`,
  '',
  `Targets (issue 5): whole export within 4x of tar --zstd -c of the sources — ${s('export') / s('tarSources') <= 4 ? 'met' : 'not met'} (${(s('export') / s('tarSources')).toFixed(2)}x); archive step within 1.5x — ${s('archive') / s('tarExport') <= 1.5 ? 'met' : 'not met'} (${(s('archive') / s('tarExport')).toFixed(2)}x).`,
  '',
  'The zstd library is zstd-napi 0.0.13 (zstd 1.5.7 by Node-API), streaming, frame checksums on. zstd-codec, which the design card named, aborts on inputs over 8-16 MiB, fails at level 11 and above and cannot write a checksum (research/bundles-and-static-sites.md §2).',
  '',
].join('\n');
fs.mkdirSync(path.join(bench, 'results'), { recursive: true });
const target = path.join(bench, 'results', `export-${new Date().toISOString().slice(0, 10)}.md`);
fs.writeFileSync(target, table);
process.stdout.write(`${table}\nwritten to ${path.relative(process.cwd(), target)}\n`);
