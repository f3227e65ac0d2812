// Renders the pages of a site selection with the kept renderer: the server
// entry point an earlier Astro build of the same code left (astro.config.mjs,
// build/site.ts), in a process of its own like a build (astro-build.mjs), and
// with no build: no Astro import and no Vite build of the page code. The
// fixtures' 33 pages took 4.4-4.6 s in a build and 1.2 s rendered so.
//
//   node render.mjs <renderer entry.mjs> <output folder>
//
// The bundle, the highlight cache and the selection come in the environment,
// as for a build; the pages are those the selection renders, then the index
// and the search page. When done, the peak memory goes back over IPC.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [entry, outDir] = process.argv.slice(2);
if (!entry || !outDir) throw new Error('usage: node render.mjs <renderer entry.mjs> <output folder>');
const { pages, render } = await import(pathToFileURL(entry).href);
for (const file of pages()) {
  const target = path.join(outDir, file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, await render(file));
}
process.send?.({ peakResidentBytes: process.resourceUsage().maxRSS * 1024 });
