// The one way a page reaches the site it renders: siteOf(Astro.locals).
//
// The kept renderer opens one site reader for its work and hands it to every
// page in `Astro.locals` (generator/renderer-entry.mjs). An Astro build
// cannot: it gives each prerendered page empty locals, and `getStaticPaths`
// none at all. So the build names its site input file in a virtual module
// (generator/astro-build.mjs), and the reader opened on it is held here, the
// only place that holds one: Astro loads each page as a module of its own,
// and every page of the build must read the same site, planned once. It is
// opened the first time a page asks, and then never replaced.

import fs from 'node:fs';
import inputFile from 'virtual:sessionizer-site-input';
import { SiteReader } from '../data/site-reader.ts';
import type { SiteInput } from '../data/site-input.ts';
import { createHighlighter } from '../generator/highlight.ts';

let ofThisBuild: SiteReader | undefined;

/** The site reader a page renders from: the one in its locals, else this build's. */
export function siteOf(locals: { site?: SiteReader } = {}): SiteReader {
  if (locals.site !== undefined) return locals.site;
  if (ofThisBuild === undefined) {
    const input = JSON.parse(fs.readFileSync(inputFile, 'utf8')) as SiteInput;
    ofThisBuild = new SiteReader(input, () => createHighlighter(input.cache));
  }
  return ofThisBuild;
}
