// Astro's build of the site, in a process of its own (generator/site.ts starts it).
//
// Plain JavaScript run by plain `node`: under the tsx loader every module
// Astro, Vite and Rollup load passes through tsx's hooks, which on the 20 MB
// benchmark corpus cost 4 to 5 s more CPU and a peak of 790 MB instead of
// 360 MB for the same build. The pages' TypeScript is compiled by Vite
// either way.
//
//   node astro-build.mjs <root> <config file, relative to root> <output folder>
//
// The bundle, the highlight cache and the selection of conversations come in
// the environment (data/site.ts, data/highlighted.ts). When the build is done,
// the process's peak memory goes back over the IPC channel, so that the
// export's step timings count this process too.
import { build } from 'astro';
import path from 'node:path';

const [root, configFile, outDir] = process.argv.slice(2);
if (!root || !configFile || !outDir) throw new Error('usage: node astro-build.mjs <root> <config file> <output folder>');
// The pages go to the output; the server chunks, with which the pages are
// rendered and which the kept renderer is (astro.config.mjs), stay in the
// root, where they import react and astro from the project.
await build({ root, configFile, outDir, build: { client: outDir, server: path.join(root, 'server') }, cacheDir: path.join(root, 'cache'), logLevel: 'error', mode: 'production' });
process.send?.({ peakResidentBytes: process.resourceUsage().maxRSS * 1024 });
