// The top navigation of every page, Astro's (layouts/Page.astro) and the
// evidence pages written directly (generator/evidence-pages.ts): the site's
// pages that list, search and explain every conversation, which are its
// pages besides the conversations' own (SITE_WIDE_PAGES).

export interface SiteLink {
  /** From the site root. */
  readonly page: string;
  readonly text: string;
}

export const SITE_NAVIGATION: readonly SiteLink[] = [
  { page: 'index.html', text: 'All conversations' },
  { page: 'search.html', text: 'Search' },
  { page: 'glossary.html', text: 'Glossary' },
];

/** The files of the site's pages that are no conversation's, from the site root: those the navigation names, in its order. */
export const SITE_WIDE_PAGES: readonly string[] = SITE_NAVIGATION.map(({ page }) => page);
