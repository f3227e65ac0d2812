// The site reader of an Astro build. The kept renderer hands its reader to
// every page in `Astro.locals` (generator/renderer-entry.mjs); an Astro build
// gives prerendered pages empty locals, so the build names its site input
// file in a virtual module (generator/astro-build.mjs), and the route's
// getStaticPaths opens one reader on it and hands it to each page in its
// props (pages/[...file].astro).

import fs from 'node:fs';
import inputFile from 'virtual:sessionizer-site-input';
import { SiteReader } from '../data/site-reader.ts';
import type { SiteInput } from '../data/site-input.ts';
import { createHighlighter } from '../generator/highlight.ts';

/** A site reader on this build's site input. */
export function openBuildSite(): SiteReader {
  const input = JSON.parse(fs.readFileSync(inputFile, 'utf8')) as SiteInput;
  return new SiteReader(input, () => createHighlighter(input.cache));
}
