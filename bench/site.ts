// The site benchmark (issue 6): `node --import tsx bench/site.ts [--seeds 150] [--runs 1]`
// (part of `npm run bench`).
//
// Two corpora, each collected, parsed and exported as a bundle once (not
// timed here: the collection and export benchmarks measure that):
//   shared     the real Claude Code trees of ../shared/corpus, when present
//   generated  seeded 1 MB corpora from scripts/generate-corpus.ts, one per
//              seed, merged into one tree: 150 seeds give a site of 3,000+ pages
// Then, each in a process of its own under GNU time, in the same run:
//   baseline   `cp -r` of the bundle: what any step that reads the bundle and
//              writes a folder of its size pays
//   cold       the site stage with an empty site cache and no renderer
//              kept (as on a fresh clone: src/site/generator/site.ts)
//   warm       the site stage again with the cache the cold build filled
//              (its finished pages), and the renderer it kept, as a second
//              export of the same conversations runs it

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { claudeCodeAdapter } from '../src/adapters/claude-code/adapter.ts';
import { discoverSessions } from '../src/adapters/claude-code/discover.ts';
import { writeExport } from '../src/export/export-folder.ts';
import { collectAll } from '../src/collection/collect-all.ts';
import { storedSessions } from '../src/landing/session-folder.ts';
import { parseSession } from '../src/parse/parse.ts';
import { PAGE_BUDGET } from '../src/site/models/page-files.ts';
import { forgetKeptRenderers } from '../src/site/generator/kept-renderer.ts';
import { generateCorpus, parseSize } from '../scripts/generate-corpus.ts';
import { median } from './median.ts';
import { folderBytes, timed, type Timed } from './timed.ts';
import { option, repository, runsOption, work, writeResults } from './corpus.ts';

const seeds = Number(option('seeds', '150'));
const runs = runsOption('1');

/** The generated tree: one 1 MB corpus per seed, project folders renamed by seed so none meet. */
function generatedTree(): string {
  const folder = path.join(work, `site-corpus-${seeds}x1MB`);
  const root = path.join(folder, 'projects');
  if (fs.existsSync(path.join(folder, 'complete.json'))) return root;
  fs.rmSync(folder, { recursive: true, force: true });
  for (let seed = 1; seed <= seeds; seed++) {
    const one = path.join(folder, `seed-${seed}`);
    generateCorpus({ out: one, bytes: parseSize('1MB'), seed: String(seed) });
    for (const project of fs.readdirSync(one)) {
      fs.mkdirSync(root, { recursive: true });
      fs.renameSync(path.join(one, project), path.join(root, `${project}-s${seed}`));
    }
    fs.rmSync(one, { recursive: true });
  }
  fs.writeFileSync(path.join(folder, 'complete.json'), JSON.stringify({ seeds }));
  return root;
}

/** Collects and parses `trees` into a fresh data folder and writes the bundle alone; returns the bundle. */
async function bundleOf(name: string, trees: string[]): Promise<string> {
  const scratch = path.join(work, `site-${name}`);
  fs.rmSync(scratch, { recursive: true, force: true });
  const data = path.join(scratch, 'data');
  for (const tree of trees) collectAll({ data, adapter: claudeCodeAdapter, discovery: discoverSessions(tree), selected: () => true });
  for (const session of storedSessions(data)) parseSession(data, session);
  await writeExport(data, path.join(scratch, 'export'), storedSessions(data), { site: false });
  return path.join(scratch, 'export', 'bundle');
}

interface SiteRun extends Timed {
  readonly pages: number;
  readonly largest: { file: string; bytes: number };
}

function site(bundle: string, out: string, cache: string): SiteRun {
  fs.rmSync(out, { recursive: true, force: true });
  // The observer hears the sum of the peaks of the site's children, which run at once.
  const script = `let builds = 0; import(${JSON.stringify(path.join(repository, 'src', 'site', 'generator', 'site.ts'))}).then((m) => m.buildSite(${JSON.stringify(bundle)}, ${JSON.stringify(out)}, ${JSON.stringify(cache)}, { observer: { step() {}, advance() {}, childMemory(bytes) { builds = Math.max(builds, bytes); } } })).then((r) => console.log(JSON.stringify({ ...r, builds })))`;
  const result = timed(process.execPath, ['--import', 'tsx', '-e', script], repository);
  const report = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { pages: number; largestPage: { file: string; bytes: number }; builds: number };
  return { ...result, peakKb: Math.max(result.peakKb, report.builds / 1024), pages: report.pages, largest: report.largestPage };
}

const corpus = path.resolve(repository, '..', 'shared', 'corpus');
const sharedTrees = [path.join(corpus, 'claude-code-log', 'test', 'test_data', 'real_projects'), path.join(corpus, 'spotter', 'test', 'fixtures')].filter((tree) => fs.existsSync(tree));
const corpora: [string, string[]][] = [...(sharedTrees.length > 0 ? [['shared corpus', sharedTrees] as [string, string[]]] : []), ['generated', [generatedTree()]]];

const lines: string[] = [];
for (const [name, trees] of corpora) {
  process.stderr.write(`site: bundling the ${name}\n`);
  const bundle = await bundleOf(name.replace(/\s/g, '-'), trees);
  const rows: Record<'copy' | 'cold' | 'warm', (Timed & Partial<SiteRun>)[]> = { copy: [], cold: [], warm: [] };
  for (let run = 0; run < runs; run++) {
    process.stderr.write(`site: ${name}, run ${run + 1} of ${runs}\n`);
    const scratch = path.join(work, `site-run-${process.pid}`);
    fs.rmSync(scratch, { recursive: true, force: true });
    fs.mkdirSync(scratch, { recursive: true });
    try {
      rows.copy.push(timed('cp', ['-r', bundle, path.join(scratch, 'copy')]));
      forgetKeptRenderers();
      rows.cold.push(site(bundle, path.join(scratch, 'site'), path.join(scratch, 'cache')));
      rows.warm.push(site(bundle, path.join(scratch, 'site'), path.join(scratch, 'cache')));
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }
  const s = (row: keyof typeof rows): number => median(rows[row].map((entry) => entry.seconds));
  const peak = (row: keyof typeof rows): string => `${(Math.max(...rows[row].map((entry) => entry.peakKb)) / 1024).toFixed(0)} MB`;
  const cold = rows.cold.at(-1)! as SiteRun;
  lines.push(
    `### ${name}: ${(folderBytes(bundle) / 1e6).toFixed(1)} MB of bundle, ${cold.pages.toLocaleString('en')} pages`,
    '',
    '| step | median | pages/s | × baseline | peak memory |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| baseline: cp -r of the bundle | ${s('copy').toFixed(2)} s | | 1.00 | ${peak('copy')} |`,
    `| site, cold: empty site cache, no renderer kept | ${s('cold').toFixed(2)} s | ${(cold.pages / s('cold')).toFixed(0)} | ${(s('cold') / s('copy')).toFixed(1)} | ${peak('cold')} |`,
    `| site, warm: the cold build's finished pages and renderer | ${s('warm').toFixed(2)} s | ${(cold.pages / s('warm')).toFixed(0)} | ${(s('warm') / s('copy')).toFixed(1)} | ${peak('warm')} |`,
    '',
    `Largest page: ${cold.largest.file}, ${(cold.largest.bytes / 1024).toFixed(0)} KB (budget ${(PAGE_BUDGET / 1024).toFixed(0)} KB: ${cold.largest.bytes <= PAGE_BUDGET ? 'within' : 'over'}). Warm over cold: ${(s('warm') / s('cold')).toFixed(2)}.`,
    '',
  );
}

const table = [
  `# Site benchmark, ${new Date().toISOString().slice(0, 10)}`,
  '',
  `Machine: ${os.cpus()[0]?.model ?? 'unknown'}, ${os.availableParallelism()} cores, one-minute load average ${os.loadavg()[0]!.toFixed(1)} when the table was written (above 2, other work shared the cores and the times are upper bounds); Node ${process.version}. Command: node --import tsx bench/site.ts --seeds ${seeds} --runs ${runs}. Median of ${runs} run${runs === 1 ? '' : 's'}; peak memory is the maximum of the whole site stage: the larger of GNU time's peak (the largest single process) and the sum of the peaks of the site's children (Astro builds, or the renderer an earlier build kept), which run at once in processes of their own.`,
  '',
  ...lines,
].join('\n');
const target = writeResults('site', table);
process.stdout.write(`${table}\nwritten to ${path.relative(process.cwd(), target)}\n`);
