// Where each page of the site lives, and how much one may hold: what the
// export's own process needs of the pages (their files, the budget it
// reports them against) without the page model that plans them (plan.ts),
// whose modules (markdown, diffs, terminal colours) it need not load.
//
//   index.html                          every conversation
//   c/<conversation>[-N].html           the conversation: its active branch, split into numbered pages
//   b/<conversation>--<branch>[-N].html a branch that is not the active one: natural or explicit
//   s/<conversation>--<stream>[-N].html a child stream
//   e/<conversation>--<seq>[-N].html    a landed file's rows (evidence.ts)
//
// Every page is one folder below the root, so a relative link is `../` plus
// the file from the root, and works from file:// and from any sub-folder of
// a static host.

import crypto from 'node:crypto';

/**
 * The most HTML one page may hold, its frame (head, header, outline, audit)
 * and its talks together; a talk larger than it has a page alone. The
 * largest real sessions have 900+ talks.
 */
export const PAGE_BUDGET = 1024 * 1024;

/** The file of a page, from the site root, of those whose names start `base`: `index` counts them from 0. */
export function pageFileOf(base: string, index: number): string {
  return `${base}${index === 0 ? '' : `-${index + 1}`}.html`;
}

/** The first page of the conversation `id`, from the site root. */
export function conversationPage(id: string): string {
  return pageFileOf(conversationPageBase(id), 0);
}

/** The start of the name of every page of the conversation `id`. */
export function conversationPageBase(id: string): string {
  return `c/${slug(id)}`;
}

/** A name safe in a file name on every system; anything else gets a digest so two names never meet. */
export function slug(name: string): string {
  if (/^[A-Za-z0-9._-]{1,80}$/.test(name) && !name.startsWith('.')) return name;
  return `${name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\./, '_').slice(0, 60)}_${crypto.createHash('sha256').update(name).digest('hex').slice(0, 10)}`;
}

/**
 * The search script of a conversation, from the site root: one classic
 * script per conversation (search-text.ts), which search.html loads as a
 * query needs it (fetch and module scripts fail from file://), written with
 * the conversation's pages (generator/site-reader.ts). One script per
 * conversation rather than one index, so that the next export, after one
 * conversation changed, writes only that conversation's script, keeps the
 * others with their pages (generator/page-store.ts), and its archive
 * compresses only that one again and copies the frames of the others
 * (bundle/archive-frames.ts); and no build holds every conversation's
 * entries at once.
 */
export function searchScriptOf(id: string): string {
  return `${SEARCH_SCRIPTS}/${slug(id)}.js`;
}

/** The folder of the search scripts, from the site root. */
export const SEARCH_SCRIPTS = 'search';
