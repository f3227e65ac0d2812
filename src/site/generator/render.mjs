// Renders the pages of a site with the kept renderer: the server entry point
// the Astro build of the renderer left (astro.config.mjs, generator/site.ts),
// in a process of its own, with no Astro import and no Vite build of the
// page code (bench/results/measurements-behind-choices.md).
//
//   node render.mjs <renderer entry.mjs>
//
// The renderer is loaded as the process starts; its work comes as messages
// over its IPC channel, `{input, output, more}` (renderer-child.ts): the
// site input (generator/site-input.ts), which names the bundle and the
// selection, and the folder to render into. The pages are those the
// selection renders, then, unless another child renders them, the pages
// that list every conversation. A work marked `more` is followed by another
// (the conversations an export renders ahead of its site step,
// WaitingRenderer.renderAhead); after the last, the peak memory goes back
// over IPC. Should the channel close while the child waits for work, the
// export ended without it, and so does this process.
import { pathToFileURL } from 'node:url';

const [entry] = process.argv.slice(2);
if (!entry || !process.send) throw new Error('usage: node render.mjs <renderer entry.mjs>, with an IPC channel over which its work comes');
// Listened for before the renderer loads, since work may come meanwhile, and
// kept in order: the next work may come while one is rendered. A message
// that names no folder to render into is no work, and is left.
const arrived = [];
let wake;
let rendering = false;
const listen = (message) => {
  if (typeof message?.output !== 'string') return;
  arrived.push(message);
  wake?.();
};
const ended = () => {
  if (!rendering) process.exit(0);
};
process.on('message', listen);
process.on('disconnect', ended);
const nextWork = async () => {
  while (arrived.length === 0) {
    if (!process.connected) process.exit(0);
    await new Promise((resolve) => (wake = resolve));
  }
  wake = undefined;
  return arrived.shift();
};
const { open } = await import(pathToFileURL(entry).href);
// Node loads its fetch classes (undici), with which the renderer asks for
// each page, when a page first names one: some tens of milliseconds, taken
// here, while a child started before its work comes (renderer-child.ts)
// waits for it.
void globalThis.Request;
for (;;) {
  const { input, output, more } = await nextWork();
  rendering = true;
  if (!more) {
    // With no listener left, the channel no longer keeps this process alive once the last pages are written.
    process.removeListener('message', listen);
    process.removeListener('disconnect', ended);
  }
  const site = open(input, output);
  for await (const file of site.pages()) await site.render(file);
  site.close();
  rendering = false;
  if (!more) break;
}
process.send({ peakResidentBytes: process.resourceUsage().maxRSS * 1024 });
