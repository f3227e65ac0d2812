// Renders the pages of a site with the kept renderer: the server entry point
// an earlier Astro build of the same code left (astro.config.mjs,
// generator/site.ts), in a process of its own like a build (astro-build.mjs),
// and with no build: no Astro import and no Vite build of the page code
// (bench/results/measurements-behind-choices.md).
//
//   node render.mjs <renderer entry.mjs> <site input.json> <output folder>
//   node render.mjs <renderer entry.mjs> [<highlight cache>]
//
// The site input (data/site-input.ts) names the bundle, the highlight cache
// and the selection; the pages are those the selection renders, then the
// index and the search page. When done, the peak memory goes back over IPC,
// with how many pages were placed from a render ahead.
//
// Without an input, the renderer is loaded and the child waits for one
// message, `{input, output}`: the site input and the folder to render into
// (kept-renderer.ts starts a child so before the site step is due), reading
// the indexes of the highlight cache it was given meanwhile. Before it,
// `{readAhead: {data, sessions}}` may come: sessions with new evidence, to
// read from the storage zone while the export parses (data/read-ahead.ts),
// and then `{renderAhead: {data, conversation, code}}`: the conversation to
// render from the storage zone while the export writes its bundle
// (render-ahead.ts). Should the channel close first, the export ended
// without needing it, and so does this process.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

const [entry, ...rest] = process.argv.slice(2);
if (!entry || rest.length > 2) throw new Error('usage: node render.mjs <renderer entry.mjs> (<site input.json> <output folder> | [<highlight cache>])');
const { open, prepare, readAhead, renderAhead } = await import(pathToFileURL(entry).href);
const work = rest.length === 2 ? { input: JSON.parse(fs.readFileSync(rest[0], 'utf8')), output: rest[1] } : await workToCome(rest[0]);
const rendering = open(work.input, work.output, work.highlighter, work.ahead);
for await (const file of rendering.pages()) await rendering.render(file);
rendering.close();
process.send?.({ peakResidentBytes: process.resourceUsage().maxRSS * 1024, renderedAhead: rendering.renderedAhead });

/**
 * The work, once the message with it comes. Meanwhile the renderer loads
 * what the first page needs, and the highlighter of `cache`, which the
 * work takes when its site highlights into that cache, and renders ahead
 * what it is asked to, into that cache.
 */
async function workToCome(cache) {
  if (!process.send) throw new Error('render.mjs: without a site input, the work comes over an IPC channel, and there is none');
  // A highlighter that fails to load costs nothing but its time: the pages
  // make their own, and say what is wrong, if anything is.
  const prepared = prepare(cache).catch(() => undefined);
  let ahead;
  const message = new Promise((resolve) => {
    const ended = () => process.exit(0);
    process.once('disconnect', ended);
    const listen = (message) => {
      if (message.readAhead !== undefined) {
        readAhead(message.readAhead.data, message.readAhead.sessions);
        return;
      }
      if (message.renderAhead !== undefined) {
        if (cache !== undefined && ahead === undefined) ahead = prepared.then((highlighter) => renderAhead(message.renderAhead, cache, highlighter));
        return;
      }
      // With no listener left, the channel no longer keeps this process
      // alive once the pages are written, as when it is started with them.
      process.removeListener('message', listen);
      process.removeListener('disconnect', ended);
      resolve(message);
    };
    process.on('message', listen);
  });
  const highlighter = await prepared;
  const { input, output } = await message;
  // Pages rendered ahead into another cache than the input's are not its pages, and go (render-ahead.ts).
  return { input, output, highlighter: cache !== undefined && input.cache === cache ? highlighter : undefined, ahead: await ahead };
}
