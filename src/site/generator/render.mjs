// Renders the pages of a site with the kept renderer: the server entry point
// the Astro build of the renderer left (astro.config.mjs, generator/site.ts),
// in a process of its own, with no Astro import and no Vite build of the
// page code (bench/results/measurements-behind-choices.md).
//
//   node render.mjs <renderer entry.mjs>
//
// The renderer is loaded as the process starts; its work comes as the first
// message over its IPC channel, `{input, output, expressions}`
// (renderer-child.ts): the site input (generator/site-input.ts), which names
// the bundle, the highlight cache and the selection, the folder to render
// into, and, when it highlights its pages itself, the grammars' translated
// expressions. The pages are
// those the selection renders, then, unless another child renders them, the
// pages that list every conversation. When
// done, the peak memory goes back over IPC. Should the channel close before
// the work comes, the export ended without it, and so does this process.
import { pathToFileURL } from 'node:url';

const [entry] = process.argv.slice(2);
if (!entry || !process.send) throw new Error('usage: node render.mjs <renderer entry.mjs>, with an IPC channel over which its work comes');
// Listened for before the renderer loads, since the work may come meanwhile.
const work = new Promise((resolve) => {
  const ended = () => process.exit(0);
  process.once('disconnect', ended);
  process.once('message', (message) => {
    // With no listener left, the channel no longer keeps this process alive
    // once the pages are written.
    process.removeListener('disconnect', ended);
    resolve(message);
  });
});
const { open } = await import(pathToFileURL(entry).href);
// Node loads its fetch classes (undici), with which the renderer asks for
// each page, when a page first names one: some tens of milliseconds, taken
// here, while a child started before its work comes (renderer-child.ts)
// waits for it. Not in the renderer's entry, which the highlighting process
// loads too, and which renders no page.
void globalThis.Request;
const { input, output, expressions } = await work;
const rendering = open(input, output, expressions);
for await (const file of rendering.pages()) await rendering.render(file);
await rendering.close();
process.send({ peakResidentBytes: process.resourceUsage().maxRSS * 1024 });
