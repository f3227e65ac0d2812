// The evidence folds of a page (a step's landed rows, qualifications,
// relations and what is unresolved; a talk's start and links) as HTML
// text, made by plain functions of the model rather than as React
// elements. A fold is closed and small, but there is one for nearly every
// step, so its elements were much of what React made for a page, and
// React's work for each element, attributes escaped one by one, was the
// largest part of a renderer's time (docs/performance.md). The markup is
// the one React made, escaped the way React escapes: every string from the
// model goes through escapeHtml.

import { counted } from '../data/shown-text.ts';
import type { EvidenceView, LinkView, StepView, TalkView } from '../data/views.ts';

const ESCAPES: Record<string, string> = { '"': '&quot;', '&': '&amp;', "'": '&#x27;', '<': '&lt;', '>': '&gt;' };
const TO_ESCAPE = /["&'<>]/g;
// Looked for once before replacing: most of the model's strings hold none.
const HOLDS_ESCAPED = /["&'<>]/;

/** Text as HTML text or a double-quoted attribute's value: every character that could start or end markup escaped. */
export function escapeHtml(value: string | number): string {
  const text = String(value);
  return HOLDS_ESCAPED.test(text) ? text.replace(TO_ESCAPE, (character) => ESCAPES[character]!) : text;
}

/** The inside of a fold (`<details class="ev">`): its summary, and `body` beneath it. */
export function foldInnerHtml(label: string, body: string): string {
  return `<summary title="${escapeHtml(`evidence and notes: ${label}`)}">evidence</summary><div class="ev-body">${body}</div>`;
}

/**
 * The inside of a step's fold: its own notes, then those of the steps
 * `also` names (an assistant turn's replies), each under its own kind.
 */
export function stepFoldInnerHtml(step: StepView, root: string, also: readonly StepView[]): string {
  const label = [step, ...also].map(({ kind }) => kind).join(', ');
  return foldInnerHtml(label, evidenceNotesHtml(step, root) + also.map((other) => `<div class="ev-also">${evidenceNotesHtml(other, root)}</div>`).join(''));
}

/** The inside of a talk's fold: who started it, the record it starts at, and its links. */
export function talkFoldInnerHtml(talk: TalkView, root: string): string {
  return foldInnerHtml(`talk ${talk.number}`, `<p>Talk ${talk.number}, started by ${escapeHtml(talk.startedBy)}.</p>${evidenceLinksHtml(talk.start ? [talk.start] : [], root)}${linksHtml(talk.links, root)}`);
}

function evidenceNotesHtml(step: StepView, root: string): string {
  let html = `<p><a href="${escapeHtml(`${root}glossary.html#${glossaryAnchor(step.kind)}`)}">${escapeHtml(step.kind)}</a>`;
  if (step.toolName) html += ` · tool ${escapeHtml(step.toolName)}`;
  if (step.flags.length > 0) html += ` · ${escapeHtml(step.flags.join(', '))}`;
  if (typeof step.fragments === 'number') html += ` · ${counted(step.fragments, 'fragment', 'fragments')}`;
  html += '</p>';
  if (step.qualities.length > 0) html += `<ul class="qualities">${step.qualities.map((quality) => `<li>${escapeHtml(quality.name)}: ${escapeHtml(quality.value)}</li>`).join('')}</ul>`;
  if (step.usage) {
    const { input, output, cache_read: read, cache_write: write } = step.usage;
    html += `<p class="usage">tokens: input ${escapeHtml(input ?? '–')}, output ${escapeHtml(output ?? '–')}, cache read ${escapeHtml(read ?? '–')}, cache write ${escapeHtml(write ?? '–')}</p>`;
  }
  html += evidenceLinksHtml(step.evidence, root) + linksHtml(step.links, root);
  for (const entry of step.unresolved) html += `<p class="unresolved">Unresolved ${escapeHtml(entry.kind)} (${escapeHtml(entry.state)}): ${escapeHtml(entry.meaning)}</p>`;
  return html;
}

/** The glossary page's anchor of a term. */
export function glossaryAnchor(term: string): string {
  return `g-${term.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

/** A line of links to landed rows on their evidence pages; empty for none. */
export function evidenceLinksHtml(refs: readonly EvidenceView[], root: string): string {
  if (refs.length === 0) return '';
  let html = '<p class="evidence">Landed records:';
  for (const ref of refs) {
    html += ref.file
      ? `<a href="${escapeHtml(ref.page !== undefined ? `${root}${ref.page}` : `${root}../${ref.file}`)}" title="${escapeHtml(`landed record: row ${ref.row} of ${ref.file}`)}">{seq ${ref.seq}, row ${ref.row}}</a>`
      : `<span> {seq ${ref.seq}, row ${ref.row}} (landed file not in the bundle)</span>`;
  }
  return `${html}</p>`;
}

/** A list of links to other steps, talks or paths, the reader's own marked; empty for none. */
export function linksHtml(links: readonly LinkView[], root: string): string {
  return links.length === 0 ? '' : `<ul class="links">${linkItemsHtml(links, root)}</ul>`;
}

/** The items of linksHtml's list. */
export function linkItemsHtml(links: readonly LinkView[], root: string): string {
  let html = '';
  for (const link of links) {
    html += '<li>';
    if (link.current) html += `<strong aria-current="page">${escapeHtml(link.label)} <span class="here">(you are here)</span></strong>`;
    else if (link.href) html += `<a href="${escapeHtml(`${root}${link.href}`)}">${escapeHtml(link.label)}</a>`;
    else html += `<span>${escapeHtml(link.label)} (on no page)</span>`;
    if (link.quality) html += `<span class="quality"> correlation: ${escapeHtml(link.quality)}</span>`;
    if (link.via) html += `<span class="via"> via ${escapeHtml(link.via)}</span>`;
    html += '</li>';
  }
  return html;
}
