// The top navigation of every page, Astro's (layouts/Page.astro) and the
// evidence pages written directly (generator/evidence-pages.ts): the site's
// pages that list, search and explain every conversation.

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
