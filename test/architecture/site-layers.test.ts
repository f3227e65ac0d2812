// The site's three layers, as its folders show them (docs/architecture.md):
// models/ (page models from the bundle alone), views/ (a model into HTML)
// and generator/ (files, processes and every cache). A model imports no view
// and nothing of the generator or the route; a view imports nothing of the
// generator or the route, other than for a type.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesUnder } from '../../scripts/files-under.ts';

const site = fileURLToPath(new URL('../../src/site', import.meta.url));

/** Every import of a module but `import type`: what a module loads. */
const IMPORT = /(?:^\s*import\s+(?!type\b)[^'";]*?\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

/** The layer a file of src/site/ is in: its first folder. */
function layerOf(file: string): string {
  return path.relative(site, file).split(path.sep)[0]!;
}

const BELOW: Record<string, readonly string[]> = {
  models: ['models'],
  views: ['models', 'views'],
};

describe('the site', () => {
  it('has three layers: no model imports a view or the generator, and no view imports the generator', () => {
    const crossing: string[] = [];
    for (const file of filesUnder(site).filter((name) => /\.(ts|mjs|astro)$/.test(name))) {
      const allowed = BELOW[layerOf(file)];
      if (allowed === undefined) continue;
      for (const [, specifier] of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const target = path.resolve(path.dirname(file), specifier!);
        if (!target.startsWith(site + path.sep)) continue;
        if (!allowed.includes(layerOf(target))) crossing.push(`${path.relative(site, file)} imports ${path.relative(site, target)}`);
      }
    }
    expect(crossing).toEqual([]);
  });
});
