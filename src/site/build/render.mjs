// Renders the pages of a site selection with the kept renderer: the server
// entry point an earlier Astro build of the same code left (astro.config.mjs,
// build/site.ts), in a process of its own like a build (astro-build.mjs), and
// with no build. A build of one small conversation spends most of its 4 s in
// Astro's import and Vite's build of the page code; this spends neither.
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
