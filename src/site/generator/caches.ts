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
//   conversation rendered again keeps the pages whose models did not change.
//
// Neither is evidence, and neither changes a byte of the site: deleting
// the folder costs only the time to render again
// (test/site/caches.test.ts). The kept renderer is the site's code, made at
// install, not a cache of pages (kept-renderer.ts).

import fs from 'node:fs';
import path from 'node:path';
import { listFolder } from '../../files/folders.ts';
import type { SiteReader } from './site-reader.ts';
import { EarlierPageRecords } from './earlier-page-records.ts';
import { PageStore } from './page-store.ts';

export class SiteCaches {
  /** The caches in `folder`. */
  constructor(readonly folder: string) {}

  /** The store of finished pages, for pages rendered by the site's `code` (kept-renderer.ts, siteCode). */
  finishedPages(code: string): PageStore {
    return new PageStore(this.folder, code);
  }

  /** The earlier pages, as the process rendering `site` keeps and records them: one per rendering process. */
  static earlierPages(site: SiteReader): EarlierPageRecords {
    return new EarlierPageRecords(site);
  }

  /**
   * Removes what earlier versions kept that no build reads any more: the
   * highlighted code of pages that highlighted it as they were rendered,
   * packed in `highlighted`, and before that a file per block, in folders
   * named by the first two digits of its key.
   */
  removeEarlierForms(): void {
    for (const name of listFolder(this.folder)) if (name === 'highlighted' || /^[0-9a-f]{2}$/.test(name)) fs.rmSync(path.join(this.folder, name), { recursive: true, force: true });
  }
}
