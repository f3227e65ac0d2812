// Renders the pages of a site selection with the kept renderer: the server
// entry point an earlier Astro build of the same code left (astro.config.mjs,
// build/site.ts), in a process of its own like a build (astro-build.mjs), and
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
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [entry, outDir] = process.argv.slice(2);
if (!entry) throw new Error('usage: node render.mjs <renderer entry.mjs> [<output folder>]');
const { pages, render, prepare, readAhead } = await import(pathToFileURL(entry).href);
const output = outDir ?? (await work());
for (const file of pages()) {
  const target = path.join(output, file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const page = await render(file);
  if (Buffer.isBuffer(page)) fs.writeFileSync(target, page);
  else linkOrCopy(page.kept, target);
}
process.send?.({ peakResidentBytes: process.resourceUsage().maxRSS * 1024 });

/**
 * A page kept from the earlier render, linked rather than read and written
 * again: after one line was added to the 1 GB benchmark corpus's biggest
 * conversation, writing its 180 kept pages (113 MB) took 0.5 s of the
 * renderer's time. Copied where a link cannot be made (another file system,
 * or one without links); a copy that fails too is the error.
 */
function linkOrCopy(from, target) {
  try {
    fs.linkSync(from, target);
  } catch {
    fs.copyFileSync(from, target);
  }
}

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
