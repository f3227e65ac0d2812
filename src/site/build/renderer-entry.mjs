// The server entry point of the kept renderer (astro.config.mjs): what
// Astro's build bundles with the pages into `entry.mjs`, for render.mjs to
// render pages with and no build at all.
import { App } from 'astro/app';
import { pagesAsPlanned } from '../data/site.ts';
import { relativeLinksOf } from './relative-links.ts';

export function createExports(manifest) {
  const app = new App(manifest);
  return {
    /**
     * The pages of the conversations this selection renders, then the index
     * and search pages, which list every conversation: given as they are
     * planned, so that each conversation is read once for its plan and its
     * pages together.
     */
    pages: function* () {
      yield* pagesAsPlanned();
      yield 'index.html';
      yield 'search.html';
    },
    /** A page's HTML, as the build would write it, with its links made relative (relative-links.ts). */
    render: async (file) => {
      const response = await app.render(new Request(`http://sessionizer.invalid/render/${file}`));
      if (response.status !== 200) throw new Error(`${file}: the renderer answered ${response.status}`);
      return relativeLinksOf(await response.text(), file);
    },
  };
}
