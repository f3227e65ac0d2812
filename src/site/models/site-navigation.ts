// The top navigation of every page, Astro's (views/Page.astro) and the
// evidence pages written directly (generator/evidence-pages.ts): the site's
// pages that list and search every conversation; with the glossary, which
// explains them, these are its pages besides the conversations' own
// (SITE_WIDE_PAGES).

export interface SiteLink {
  /** From the site root. */
  readonly page: string;
  readonly text: string;
}

export const SITE_NAVIGATION: readonly SiteLink[] = [
  { page: 'index.html', text: 'All conversations' },
  { page: 'search.html', text: 'Search' },
];

/**
 * The glossary explains the words of the evidence and the audit, so it is
 * linked from them (a conversation page's audit section, each evidence
 * fold), not from the navigation a reader of the transcript sees.
 */
export const GLOSSARY_PAGE = 'glossary.html';

/** The files of the site's pages that are no conversation's, from the site root: those the navigation names, in its order, and the glossary. */
export const SITE_WIDE_PAGES: readonly string[] = [...SITE_NAVIGATION.map(({ page }) => page), GLOSSARY_PAGE];
