// Renders the pages of a site selection with the kept renderer: the server
// entry point an earlier Astro build of the same code left (astro.config.mjs,
// generator/site.ts), in a process of its own like a build (astro-build.mjs), and
// with no build: no Astro import and no Vite build of the page code. The
// fixtures' 33 pages took 4.4-4.6 s in a build and 1.2 s rendered so.
//
//   node render.mjs <renderer entry.mjs> <output folder>
//   node render.mjs <renderer entry.mjs>
//
// The bundle, the highlight cache and the selection come in the environment,
// as for a build; the pages are those the selection renders, then the index
// and the search page. When done, the peak memory goes back over IPC.
//
// Without an output folder, the renderer is loaded and the child waits for
// one message, `{output, variables}`: the folder, and the site's variables to
// add to the environment (kept-renderer.ts starts a child so before the site
// step is due). Before it, `{readAhead: {data, sessions}}` may come: sessions
// with new evidence, to read from the storage zone while the export parses
// (data/read-ahead.ts). Should the channel close first, the export ended
// without needing it, and so does this process.
import { pathToFileURL } from 'node:url';

const [entry, outDir] = process.argv.slice(2);
if (!entry) throw new Error('usage: node render.mjs <renderer entry.mjs> [<output folder>]');
const { pages, render, prepare, readAhead } = await import(pathToFileURL(entry).href);
const output = outDir ?? (await work());
for (const file of pages()) await render(file, output);
process.send?.({ peakResidentBytes: process.resourceUsage().maxRSS * 1024 });

/**
 * The output folder, once the message with the work comes; the site's
 * variables are in the environment then. Meanwhile the renderer loads what
 * the first page needs.
 */
async function work() {
  if (!process.send) throw new Error('render.mjs: without an output folder, the work comes over an IPC channel, and there is none');
  const message = new Promise((resolve) => {
    const ended = () => process.exit(0);
    process.once('disconnect', ended);
    const listen = (message) => {
      if (message.readAhead !== undefined) {
        readAhead(message.readAhead.data, message.readAhead.sessions);
        return;
      }
      // With no listener left, the channel no longer keeps this process
      // alive once the pages are written, as when it is started with them.
      process.removeListener('message', listen);
      process.removeListener('disconnect', ended);
      Object.assign(process.env, message.variables);
      resolve(message.output);
    };
    process.on('message', listen);
  });
  // A warm-up that fails costs nothing but its time: the pages say what is wrong, if anything is.
  await prepare?.().catch(() => {});
  return message;
}
