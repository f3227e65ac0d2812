// The site's caches, behind one interface: what the site step (site.ts) and
// the renderer (renderer-entry.mjs) keep from one export to the next is
// reached through SiteCaches alone, in one folder beside the storage zone
// (`<data>/_site-cache`, export/export-folder.ts):
//
// - the store of finished pages (page-store.ts): each conversation's pages
//   under a key of its bundle files and of the site's code, placed rather
//   than rendered when the key is found;
// - the earlier pages (earlier-page-records.ts, models/view-digests.ts): the
//   digest of each page's model recorded beside its plan, so that a
//   conversation rendered again keeps the pages whose models did not change;
// - the highlight cache (generator/highlighted.ts, read and added to by
//   highlight.ts): shiki's output by the digest of its themes, language and
//   code.
//
// None of them is evidence, and none changes a byte of the site: deleting
// the folder costs only the time to render and highlight again
// (test/site/caches.test.ts). The kept renderer is the site's code, made at
// install, not a cache of pages (kept-renderer.ts).

import { cachedBlocks, removeEarlierBlocks } from './highlighted.ts';
import type { SiteReader } from './site-reader.ts';
import { EarlierPageRecords } from './earlier-page-records.ts';
import { createHighlighter, type Highlighter } from './highlight.ts';
import { PageStore } from './page-store.ts';

export class SiteCaches {
  /** The caches in `folder`. */
  constructor(readonly folder: string) {}

  /** The store of finished pages, for pages rendered by the site's `code` (kept-renderer.ts, siteCode). */
  finishedPages(code: string): PageStore {
    return new PageStore(this.folder, code);
  }

  /** The earlier pages, as the process rendering `site` keeps and records them: one per rendering process. */
  earlierPages(site: SiteReader): EarlierPageRecords {
    return new EarlierPageRecords(site);
  }

  /** A highlighter that reads the highlight cache and adds what it highlights to it, with the grammars' `expressions` translated when the renderer was made. */
  highlighter(expressions?: string): Promise<Highlighter> {
    return createHighlighter(this.folder, expressions);
  }

  /** How many code blocks the highlight cache holds whole: a site step counts those it highlighted by the difference. */
  highlightedBlocks(): number {
    return cachedBlocks(this.folder);
  }

  /** Removes what an earlier version of the caches kept in a form no build reads any more. */
  removeEarlierForms(): void {
    removeEarlierBlocks(this.folder);
  }
}
