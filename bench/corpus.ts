// What the benchmarks share: their command-line options, the tree they
// measure, and the seeded corpora they measure on, generated once into
// bench/work/corpus-<size>-<seed> and reused while the generator that wrote
// them is the one here now.

import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Transcript } from '../scripts/claude-code-records.ts';
import { generateCorpus, parseSize, type CorpusSummary } from '../scripts/generate-corpus.ts';

export const bench = path.dirname(fileURLToPath(import.meta.url));
export const repository = path.dirname(bench);
export const work = path.join(bench, 'work');

export const log = (text: string): void => void process.stderr.write(`${text}\n`);

/**
 * Writes a benchmark's table to bench/results/<kind>-<day>.md (the day in
 * UTC), or, when a run of the same day wrote that file already, to
 * <kind>-<day>-2.md, -3 and so on: a table records one run, and a later run
 * never writes over it. Returns the file written.
 */
export function writeResults(kind: string, table: string): string {
  const folder = path.join(bench, 'results');
  fs.mkdirSync(folder, { recursive: true });
  const day = new Date().toISOString().slice(0, 10);
  for (let run = 1; ; run++) {
    const target = path.join(folder, `${kind}-${day}${run === 1 ? '' : `-${run}`}.md`);
    try {
      fs.writeFileSync(target, table, { flag: 'wx' });
      return target;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Which commit the checkout `tree` is at, with how many of its files under
 * src/ differ from it, as it is when the run begins: src may change under a
 * long run's feet, and a table must say what it measured. Only the commit
 * names the tree: where it was checked out is this machine's, not the table's.
 */
export function treeCommit(tree: string): string {
  const git = (...args: string[]): string => spawnSync('git', args, { cwd: tree, encoding: 'utf8' }).stdout?.trim() ?? '';
  const commit = git('rev-parse', '--short', 'HEAD') || 'unknown';
  const changed = git('status', '--porcelain', '--', 'src').split('\n').filter((line) => line !== '').length;
  return `commit ${commit}${changed > 0 ? `, with ${changed} uncommitted change${changed === 1 ? '' : 's'} under src/` : ''}`;
}

/** The line that says which tree a benchmark of this checkout measured (treeCommit). */
export function measuredTree(): string {
  return `Tree: ${treeCommit(repository)}.`;
}

/** The value after `--name`, or the fallback when it is not given. */
export function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = process.argv[at + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
  return value;
}

/** A comma-separated list of corpus sizes, each checked. */
export function sizesOption(fallback: string): string[] {
  const sizes = option('sizes', fallback)
    .split(',')
    .map((size) => size.trim())
    .filter((size) => size !== '');
  for (const size of sizes) parseSize(size);
  return sizes;
}

export function runsOption(fallback: string): number {
  const runs = Number(option('runs', fallback));
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number from 1, not ${runs}`);
  return runs;
}

// A corpus is reused only if the generator that wrote it is the one here now.
function generatorVersion(): string {
  const hash = crypto.createHash('sha256');
  for (const file of ['scripts/generate-corpus.ts', 'scripts/claude-code-records.ts']) hash.update(fs.readFileSync(path.join(repository, file)));
  return hash.digest('hex').slice(0, 16);
}

export interface Corpus {
  readonly root: string;
  readonly summary: CorpusSummary;
  readonly generatedMs?: number;
}

export function corpusFor(size: string, seed: string): Corpus {
  const folder = path.join(work, `corpus-${size}-${seed}`);
  const marker = path.join(folder, 'complete.json');
  const root = path.join(folder, 'projects');
  const version = generatorVersion();
  if (fs.existsSync(marker)) {
    const stored = JSON.parse(fs.readFileSync(marker, 'utf8')) as { version?: string; summary?: CorpusSummary };
    if (stored.version === version && stored.summary) return { root, summary: stored.summary };
    log(`${folder}: written by another version of the generator; generating again`);
  }
  fs.rmSync(folder, { recursive: true, force: true });
  log(`generating a ${size} corpus with seed ${seed} into ${path.relative(process.cwd(), root)} …`);
  const started = performance.now();
  const summary = generateCorpus({ out: root, bytes: parseSize(size), seed });
  const generatedMs = performance.now() - started;
  fs.writeFileSync(marker, `${JSON.stringify({ version, size, seed, summary, generatedMs: Math.round(generatedMs) }, null, 2)}\n`);
  return { root, summary, generatedMs };
}

export interface MainTranscript {
  readonly file: string;
  /** Path inside the source root, with forward slashes. */
  readonly relative: string;
  readonly size: number;
}

/** Every `<project>/<session>.jsonl`, smallest first. */
export function mainTranscripts(root: string, files: string[]): MainTranscript[] {
  const found: MainTranscript[] = [];
  for (const file of files) {
    const relative = path.relative(root, file).split(path.sep).join('/');
    if (/^[^/]+\/[0-9a-fA-F-]{36}\.jsonl$/.test(relative)) found.push({ file, relative, size: fs.statSync(file).size });
  }
  if (found.length === 0) throw new Error(`${root}: no main transcript`);
  return found.sort((a, b) => a.size - b.size || (a.relative < b.relative ? -1 : 1));
}

/** The largest `<project>/<session>.jsonl`. */
export function biggestMainTranscript(root: string, files: string[]): MainTranscript {
  return mainTranscripts(root, files).at(-1)!;
}

/** One valid transcript line continuing `file`: a prompt parented on its last record. */
export function nextLine(file: string, tag: string): string {
  const size = fs.statSync(file).size;
  const tail = Buffer.alloc(Math.min(size, 4 << 20));
  const descriptor = fs.openSync(file, 'r');
  try {
    fs.readSync(descriptor, tail, 0, tail.length, size - tail.length);
  } finally {
    fs.closeSync(descriptor);
  }
  const lines = tail.toString('utf8').split('\n');
  for (let index = lines.length - 1; index >= 0; index--) {
    let record: { uuid?: unknown; sessionId?: unknown; cwd?: unknown; timestamp?: unknown };
    try {
      record = JSON.parse(lines[index]!) as typeof record;
    } catch {
      continue;
    }
    if (typeof record.uuid !== 'string' || typeof record.sessionId !== 'string') continue;
    const t = new Transcript({
      session: record.sessionId,
      cwd: typeof record.cwd === 'string' ? record.cwd : undefined,
      start: typeof record.timestamp === 'string' ? record.timestamp : undefined,
      idSeed: `bench-append:${tag}`,
    });
    t.prompt('One more thing: run the tests again.', { parent: record.uuid });
    return t.text();
  }
  throw new Error(`${file}: no record with a uuid near its end`);
}
