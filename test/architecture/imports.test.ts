// The folder tree shows the pipeline, and the imports follow it one way: a
// folder imports only folders before it in PIPELINE (or itself). Claude Code
// is reached only through the adapter registry.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesUnder } from '../../scripts/files-under.ts';

const source = fileURLToPath(new URL('../../src', import.meta.url));

/** Each stage of the pipeline, in order; folders on one line are at the same stage and import none of each other. */
const PIPELINE: readonly (readonly string[])[] = [
  ['files', 'cores', 'model'],
  ['landing'],
  ['session-data'],
  ['adapters'],
  ['collection'],
  ['index'],
  ['assembly'],
  ['session-flow'],
  ['branches'],
  ['parse'],
  ['redaction'],
  ['bundle'],
  ['site'],
  ['verify'],
  ['export'],
  ['cli'],
];

const stageOf = new Map(PIPELINE.flatMap((folders, stage) => folders.map((folder) => [folder, stage] as const)));
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

interface Import {
  readonly file: string;
  readonly target: string;
}

function importsOf(file: string): Import[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => ({ file: path.relative(source, file), target: path.relative(source, path.resolve(path.dirname(file), match[1]!)) }));
}

const topFolder = (relative: string): string => relative.split(path.sep)[0]!;
const everyImport = filesUnder(source)
  .filter((file) => /\.(ts|tsx|mjs|astro)$/.test(file))
  .flatMap(importsOf);

describe('the import graph', () => {
  it('names every folder of src/ in the pipeline', () => {
    const folders = fs.readdirSync(source, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(folders.filter((folder) => !stageOf.has(folder))).toEqual([]);
  });

  it('finds the imports it checks, static and across folders', () => {
    // The checks below pass on an empty graph: these imports are known to be there.
    expect(everyImport).toContainEqual({ file: path.join('cli', 'commands', 'branches.ts'), target: path.join('branches', 'explicit.ts') });
    expect(everyImport).toContainEqual({ file: path.join('adapters', 'built-in.ts'), target: path.join('adapters', 'claude-code', 'adapter.ts') });
  });

  it('has no folder importing one that comes after it in the pipeline', () => {
    const backwards = everyImport
      .filter(({ file, target }) => !target.startsWith('..') && topFolder(file) !== topFolder(target))
      .filter(({ file, target }) => stageOf.get(topFolder(target))! >= stageOf.get(topFolder(file))!)
      .map(({ file, target }) => `${file} imports ${target}`);
    expect(backwards).toEqual([]);
  });

  it('reaches Claude Code only through the adapter registry', () => {
    const registry = new Set([path.join('adapters', 'built-in.ts'), path.join('adapters', 'dialects.ts')]);
    const claudeCode = path.join('adapters', 'claude-code') + path.sep;
    const direct = everyImport
      .filter(({ file, target }) => target.startsWith(claudeCode) && !file.startsWith(claudeCode) && !registry.has(file))
      .map(({ file, target }) => `${file} imports ${target}`);
    expect(direct).toEqual([]);
  });
});
