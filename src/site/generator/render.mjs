// Renders the pages of a site with the kept renderer: the server entry point
// the Astro build of the renderer left (astro.config.mjs, generator/site.ts),
// in a process of its own, with no Astro import and no Vite build of the
// page code (bench/results/measurements-behind-choices.md).
//
//   node render.mjs <renderer entry.mjs> <site input.json> <output folder>
//
// The site input (generator/site-input.ts) names the bundle, the highlight cache
// and the selection; the pages are those the selection renders, then the
// index and the search page. When done, the peak memory goes back over IPC.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

const [entry, input, output] = process.argv.slice(2);
if (!entry || !input || !output) throw new Error('usage: node render.mjs <renderer entry.mjs> <site input.json> <output folder>');
const { open } = await import(pathToFileURL(entry).href);
const rendering = open(JSON.parse(fs.readFileSync(input, 'utf8')), output);
for await (const file of rendering.pages()) await rendering.render(file);
rendering.close();
process.send?.({ peakResidentBytes: process.resourceUsage().maxRSS * 1024 });
