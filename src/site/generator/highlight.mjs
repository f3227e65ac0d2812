// The highlighting process of a site step (highlight-service.ts): one
// highlighter, the kept renderer's, answers the questions of every renderer
// child, which the site step passes on to it, until the site step says it
// is done. When done, the peak memory goes back over IPC.
//
//   node highlight.mjs <renderer entry.mjs>
//
// The renderer is loaded as the process starts; its work comes as the first
// message over its IPC channel, `{cache, expressions}` (renderer-child.ts):
// the highlight cache, and the grammars' expressions translated when the
// renderer was made; the questions follow. Every message is kept from the
// start, since one that comes while the renderer loads or the highlighter is
// made would otherwise be lost. Should the channel close before the site
// step says it is done, the export ended, and so does this process.
import { pathToFileURL } from 'node:url';

const [entry] = process.argv.slice(2);
if (!entry || !process.send) throw new Error('usage: node highlight.mjs <renderer entry.mjs>, with an IPC channel over which its work comes');
const arrived = [];
let wake;
const keep = (message) => {
  arrived.push(message);
  wake?.();
};
const ended = () => process.exit(0);
process.on('message', keep);
process.once('disconnect', ended);
async function* messages() {
  for (;;) {
    while (arrived.length === 0) await new Promise((resolve) => (wake = resolve));
    yield arrived.shift();
  }
}
const incoming = messages();
const { highlight } = await import(pathToFileURL(entry).href);
const { value: work } = await incoming.next();
await highlight(work.cache, work.expressions, incoming, (answer) => process.send(answer));
// With no listener left, the channel no longer keeps this process alive.
process.removeListener('message', keep);
process.removeListener('disconnect', ended);
process.send({ peakResidentBytes: process.resourceUsage().maxRSS * 1024 });
