// Where each page of the site lives, and how much one may hold: what the
// export's own process needs of the pages (their files, the budget it
// measures them against) without the page model that plans them (plan.ts),
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

/** The most HTML one page may hold. The largest real sessions have 900+ talks. */
export const PAGE_BUDGET = 1024 * 1024;
/** The estimate is rough, so pages are cut well below the budget. */
export const ESTIMATE_BUDGET = PAGE_BUDGET * 0.6;

/** What the site step knows of a page it rendered: its estimate, how many talks it shows, and its bytes as written. */
export interface MeasuredPage {
  readonly file: string;
  /** The estimated HTML of its talks, unscaled (streams.ts). */
  readonly weight: number;
  readonly talks: number;
  readonly bytes: number;
}

/**
 * The scale of the estimate a conversation is planned again with, when a
 * page of its render at `scale` passed PAGE_BUDGET and holds more than one
 * talk (a talk is never cut, so a page of one talk may pass it): the most
 * bytes rendered per unit of estimate on such a page, so that a page like it
 * is cut at the margin ESTIMATE_BUDGET leaves. Undefined when no page can be
 * made to fit by planning again. Splitting keeps a page of several talks
 * within ESTIMATE_BUDGET / scale, so such a page over PAGE_BUDGET measured
 * more than PAGE_BUDGET / ESTIMATE_BUDGET times `scale` per unit: the scale
 * grows each time, and a scale that would not is no correction.
 */
export function scaleToFit(pages: readonly MeasuredPage[], scale: number): number | undefined {
  let ratio: number | undefined;
  for (const { bytes, weight, talks } of pages) if (bytes > PAGE_BUDGET && talks > 1) ratio = Math.max(ratio ?? 0, bytes / weight);
  return ratio !== undefined && ratio > scale ? ratio : undefined;
}

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
