// The highlighting process of a site step (highlight-service.ts): one
// highlighter, the kept renderer's, answers the questions of every renderer
// child, which the site step passes on to it, until the site step says it
// is done. When done, the peak memory goes back over IPC.
//
//   node highlight.mjs <renderer entry.mjs> <highlight cache> [<translated expressions>]
import { pathToFileURL } from 'node:url';

const [entry, cache, expressions] = process.argv.slice(2);
if (!entry || !cache) throw new Error('usage: node highlight.mjs <renderer entry.mjs> <highlight cache> [<translated expressions>]');
const { highlight } = await import(pathToFileURL(entry).href);
await highlight(cache, expressions);
process.send?.({ peakResidentBytes: process.resourceUsage().maxRSS * 1024 });
