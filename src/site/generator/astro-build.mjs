// Astro's build of the site's renderer, in a process of its own
// (generator/site.ts, makeRenderer, starts it). It renders no page: the
// site's one route (pages/render/[...file].astro) is rendered on demand, so
// what the build leaves is its server chunks, the pages' code bundled with
// that route behind the entry point of renderer-entry.mjs, which
// kept-renderer.ts keeps as the renderer every page is rendered with.
//
// Plain JavaScript run by plain `node`: under the tsx loader every module
// Astro, Vite and Rollup load passes through tsx's hooks, which cost the
// build much CPU and memory (bench/results/measurements-behind-choices.md).
// The pages' TypeScript is compiled by Vite either way.
//
//   node astro-build.mjs <root> <config file, relative to root> <output folder>
//
// When the build is done, the process's peak memory goes back over the IPC
// channel, so that the export's step timings count this process too.
import { build } from 'astro';
import path from 'node:path';

const [root, configFile, outDir] = process.argv.slice(2);
if (!root || !configFile || !outDir) throw new Error('usage: node astro-build.mjs <root> <config file> <output folder>');

// The server chunks, which the kept renderer is (astro.config.mjs), stay in
// the root, where they import astro and the site's packages from the
// project; the output folder receives only what the build copies there.
await build({ root, configFile, outDir, build: { client: outDir, server: path.join(root, 'server') }, cacheDir: path.join(root, 'cache'), logLevel: 'error', mode: 'production' });
process.send?.({ peakResidentBytes: process.resourceUsage().maxRSS * 1024 });
