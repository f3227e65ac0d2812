// A step's link to itself: a small "#" on its header line, to copy or share
// the address of that step. Shown while the step is hovered or the link has
// the keyboard's focus, and faintly always on a screen that cannot hover
// (site.css); a link like any other, so it works with JavaScript off.

import { html, type Html } from './html.ts';

/** The link to the step whose element has the id `anchor`; `what` names the step for a screen reader ("prompt", "tool call"). */
export function selfLinkHtml(anchor: string, what: string): Html {
  return html`<a class="self-link" href="#${anchor}" aria-label="Link to this ${what}">#</a>`;
}
