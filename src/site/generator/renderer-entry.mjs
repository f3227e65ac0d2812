// The server entry point of the kept renderer (astro.config.mjs): what
// Astro's build bundles with the pages into `entry.mjs`, for render.mjs to
// render pages with and no build at all.
import fs from 'node:fs';
import path from 'node:path';
import { App } from 'astro/app';
import { SiteReader } from './site-reader.ts';
import { linkOrCopy } from './link-or-copy.ts';
import { relativeLinksOf } from './relative-links.ts';
import { SiteCaches } from './caches.ts';
import { SITE_WIDE_PAGES } from '../models/site-navigation.ts';

export function createExports(manifest) {
  // Not streaming, as a static build renders: the page's frame is one
  // string, encoded once. Streamed, its chunks were encoded one by one and
  // decoded again by response.text(), a good part of a child's time
  // (bench/results/measurements-behind-choices.md).
  const app = new App(manifest, false);
  /**
   * The page `file` of `site`, as the build would write it: its frame
   * rendered, its talks' held bytes put in place (SiteReader.placeTalks),
   * its links made relative in its bytes (relative-links.ts).
   */
  const pageBytes = async (site, file) => {
    const response = await app.render(new globalThis.Request(`http://sessionizer.invalid/render/${file}`), { locals: { site } });
    if (response.status !== 200) throw new Error(`${file}: the renderer answered ${response.status}`);
    return relativeLinksOf(site.placeTalks(file, Buffer.from(await response.arrayBuffer())), file);
  };
  /**
   * Writes the page `file` of `site` under `output` (pageBytes). A page of a
   * conversation whose model did not change is the file its earlier render
   * wrote (page-store.ts), linked rather than read and written again, which
   * for a large conversation would be a good part of the renderer's time.
   * The index and the search page list every conversation and are always
   * rendered.
   */
  const writePage = async (site, earlier, file, output) => {
    const kept = SITE_WIDE_PAGES.includes(file) ? undefined : earlier.keptPage(file);
    if (kept !== undefined) return linkOrCopy(kept, output, file);
    const bytes = await pageBytes(site, file);
    const target = path.join(output, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, bytes);
    earlier.rendered(file, bytes);
  };
  return {
    /**
     * The rendering of the site `input` names (generator/site-input.ts), by one
     * site reader, which every page reaches in its `Astro.locals`
     * (pages/render/[...file].astro).
     */
    open: (input, output) => {
      const site = new SiteReader(input, output);
      const earlier = SiteCaches.earlierPages(site);
      return {
        /**
         * The pages of the conversations this selection renders, then, unless
         * another build renders them (SiteSelection.siteWidePages), the index
         * and search pages, which list every conversation, and the glossary:
         * given as they are planned, so that each conversation is read once
         * for its plan and its pages together.
         */
        pages: function* () {
          yield* site.pagesAsPlanned();
          if (input.selection?.siteWidePages !== false) yield* SITE_WIDE_PAGES;
        },
        /** Writes the page `file` under the output folder (writePage). */
        render: (file) => writePage(site, earlier, file, output),
        /** Closes the site reader. */
        close: () => site.close(),
      };
    },
  };
}
