// The site's caches are behind one interface (src/site/generator/caches.ts):
// no module of src/ but the caches' own reaches the store of finished pages
// or the earlier pages, other than for a type.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesUnder } from '../../scripts/files-under.ts';

const source = fileURLToPath(new URL('../../src', import.meta.url));

/** The modules that make up the caches, from src/; caches.ts is the one the rest of src/ reaches them through. */
const CACHE_MODULES = ['site/generator/caches.ts', 'site/generator/page-store.ts', 'site/generator/earlier-page-records.ts'];

/** Every import of a module, but `import type`: what a module loads. */
const IMPORT = /(?:^\s*import\s+(?!type\b)[^'";]*?\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

describe('the site caches', () => {
  it('are reached through caches.ts alone', () => {
    const reaching: string[] = [];
    for (const file of filesUnder(source).filter((name) => /\.(ts|mjs|astro)$/.test(name))) {
      const from = path.relative(source, file).split(path.sep).join('/');
      if (CACHE_MODULES.includes(from)) continue;
      for (const [, specifier] of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const target = path.relative(source, path.resolve(path.dirname(file), specifier!)).split(path.sep).join('/');
        if (CACHE_MODULES.includes(target) && target !== 'site/generator/caches.ts') reaching.push(`${from} imports ${target}`);
      }
    }
    expect(reaching).toEqual([]);
  });
});
