// Astro's build of the site, in a process of its own (generator/site.ts starts it).
//
// Plain JavaScript run by plain `node`: under the tsx loader every module
// Astro, Vite and Rollup load passes through tsx's hooks, which cost the
// build much CPU and memory (bench/results/measurements-behind-choices.md). The pages' TypeScript is
// compiled by Vite either way.
//
//   node astro-build.mjs <root> <config file, relative to root> <site input.json> <output folder>
//
// The site input (data/site-input.ts) names the bundle, the highlight cache
// and the selection of conversations. A prerendered page has no way to be
// handed it: Astro gives each page empty locals, and loads the pages from
// the chunks Vite bundled, whose modules are not the ones this process
// could set anything in. So the pages are given the input file's name in a
// virtual module (SITE_INPUT), and the route's getStaticPaths opens the
// build's one site reader on it and hands it to every page in its props
// (pages/[...file].astro, views/build-site.ts). When the build is done, the process's peak
// memory goes back over the IPC channel, so that the export's step timings
// count this process too.
import { build } from 'astro';
import path from 'node:path';

const [root, configFile, input, outDir] = process.argv.slice(2);
if (!root || !configFile || !input || !outDir) throw new Error('usage: node astro-build.mjs <root> <config file> <site input.json> <output folder>');

/** The virtual module that names this build's site input file; views/build-site.ts imports it, and site-input-module.d.ts types it. */
const SITE_INPUT = 'virtual:sessionizer-site-input';

/**
 * Vite's plugin of the virtual module. It names the file rather than holding
 * its content: the module is bundled into the server chunks, which the
 * renderer kept from this build loads in every later child, and there the
 * input comes with each render instead (renderer-entry.mjs).
 */
const siteInputModule = {
  name: 'sessionizer-site-input',
  resolveId: (id) => (id === SITE_INPUT ? `\0${SITE_INPUT}` : undefined),
  load: (id) => (id === `\0${SITE_INPUT}` ? `export default ${JSON.stringify(path.resolve(input))};` : undefined),
};

// The pages go to the output; the server chunks, with which the pages are
// rendered and which the kept renderer is (astro.config.mjs), stay in the
// root, where they import astro and the site's packages from the project.
await build({ root, configFile, outDir, build: { client: outDir, server: path.join(root, 'server') }, cacheDir: path.join(root, 'cache'), logLevel: 'error', mode: 'production', vite: { plugins: [siteInputModule] } });
process.send?.({ peakResidentBytes: process.resourceUsage().maxRSS * 1024 });
