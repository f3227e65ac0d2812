// The server entry point of the kept renderer (astro.config.mjs): what
// Astro's build bundles with the pages into `entry.mjs`, for render.mjs to
// render pages with and no build at all.
import fs from 'node:fs';
import path from 'node:path';
import { App } from 'astro/app';
import { pagesAsPlanned } from '../data/site.ts';
import { CACHE_VARIABLE } from '../data/highlighted.ts';
import { pageHighlighter } from './highlight.ts';
import { linkOrCopy } from './link-or-copy.ts';
import { relativeLinksOf } from './relative-links.ts';
import { keptPage } from '../data/earlier-pages.ts';
import { readAhead } from '../data/read-ahead.ts';

/** The pages of a conversation, a branch or a child stream (data/plan.ts). */
const CONVERSATION_PAGE = /^[cbs]\//;

export function createExports(manifest) {
  // Not streaming, as a static build renders: the page is one string,
  // encoded once. Streamed, its chunks were encoded one by one and decoded
  // again by response.text(), a tenth of a child's time.
  const app = new App(manifest, false);
  return {
    /**
     * The pages of the conversations this selection renders, then the index
     * and search pages, which list every conversation, and the glossary: given as they are
     * planned, so that each conversation is read once for its plan and its
     * pages together.
     */
    pages: function* () {
      yield* pagesAsPlanned();
      yield 'index.html';
      yield 'search.html';
      yield 'glossary.html';
    },
    /**
     * Loads what the first page would, for a child that waits for its work
     * (render.mjs): the fetch classes, which Node loads on their first use,
     * and the highlight cache's indexes, of the cache in the environment.
     * After one conversation changed, reading the indexes and loading
     * modules on their first use are a third of a renderer's work; done
     * while it waits, they leave the site step.
     */
    prepare: async () => {
      void new Request('http://sessionizer.invalid/');
      if (process.env[CACHE_VARIABLE] !== undefined) (await pageHighlighter()).warm();
    },
    /** Reads sessions with new evidence from the storage zone while the export parses them (data/read-ahead.ts). */
    readAhead,
    /**
     * Writes the page `file` under `output` as the build would write it,
     * with its links made relative in its bytes (relative-links.ts). A page
     * of a conversation whose model did not change is the file its earlier
     * render wrote (earlier-pages.ts), linked rather than read and written
     * again, which for a large conversation would be a good part of the
     * renderer's time. The index and the
     * search page list every conversation and are always rendered.
     */
    render: async (file, output) => {
      const kept = CONVERSATION_PAGE.test(file) ? keptPage(file) : undefined;
      if (kept !== undefined) return linkOrCopy(kept, output, file);
      const response = await app.render(new Request(`http://sessionizer.invalid/render/${file}`));
      if (response.status !== 200) throw new Error(`${file}: the renderer answered ${response.status}`);
      const target = path.join(output, file);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, relativeLinksOf(new Uint8Array(await response.arrayBuffer()), file));
    },
  };
}
