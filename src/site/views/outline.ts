// The outline at the top of a conversation's, a branch's or a subagent's
// first page: a fold listing its prompts, each linked to its talk on
// whichever page holds it, with its time. A native <details>: it opens and
// its links work with JavaScript off. And the timeline of the page's audit,
// a list of the same kind.

import { counted } from '../models/shown-text.ts';
import { timeShown } from '../models/facts.ts';
import type { OutlineEntry, PageModel } from '../models/site.ts';
import { contentText, html } from './html.ts';

/** The outline's fold; `root` leads from this page to the site root, `page` is this page's number. */
export function outlineHtml(entries: readonly OutlineEntry[], root: string, page: number): string {
  const pages = new Set(entries.map((entry) => entry.page)).size;
  let day: string | undefined;
  const items = entries.map((entry) => {
    // The date is shown on the first prompt and on each that starts another day; the time of day on every one.
    const shown = entry.time === undefined ? undefined : entry.time.slice(0, 10) === day ? entry.time.slice(11, 16) : timeShown(entry.time);
    if (entry.time !== undefined) day = entry.time.slice(0, 10);
    return html`<li><a href="${root}${entry.href}">${entry.label}</a>${shown !== undefined && html` <time datetime="${entry.time}" title="${entry.time}">${shown}</time>`}${pages > 1 && entry.page !== page && html` <span class="on-page">page ${entry.page}</span>`}</li>`;
  });
  return contentText(html`<details class="outline"><summary>Outline: ${counted(entries.length, 'prompt', 'prompts')}${pages > 1 && ` on ${pages} pages`}</summary><ol>${items}</ol></details>`);
}

/** One entry of the audit's timeline: the quiet time before it, its link, its time. The page budget counts pages by it (generator/talk-pages.ts). */
export function timelineEntryHtml(entry: PageModel['timeline'][number], root: string): string {
  return contentText(html`<li>${entry.quiet && html`<span class="quiet-gap">${entry.quiet}</span>`}<a href="${root}${entry.href}">${entry.label}</a>${entry.time && html` <time datetime="${entry.time}">${timeShown(entry.time)}</time>`}</li>`);
}
