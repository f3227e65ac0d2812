// The evidence folds of a page (a step's landed rows, qualifications,
// relations and what is unresolved; a talk's start and links). A fold is
// closed and small, but there is one for nearly every step.

import { counted } from '../models/shown-text.ts';
import type { EvidenceView, LinkView, StepView, TalkView } from '../models/views.ts';
import { html, type Content, type Html } from './html.ts';

/** A fold, small and closed: its summary, and `body` beneath it. */
function foldHtml(label: string, body: Content): Html {
  return html`<details class="ev"><summary title="evidence and notes: ${label}">evidence</summary><div class="ev-body">${body}</div></details>`;
}

/**
 * A step's fold: its own notes, then those of the steps `also` names (an
 * assistant turn's replies, whose evidence their turn's fold holds), each
 * under its own kind.
 */
export function stepFoldHtml(step: StepView, root: string, also: readonly StepView[] = []): Html {
  const label = [step, ...also].map(({ kind }) => kind).join(', ');
  return foldHtml(label, html`${evidenceNotesHtml(step, root)}${also.map((other) => html`<div class="ev-also">${evidenceNotesHtml(other, root)}</div>`)}`);
}

/** A talk's fold: who started it, the record it starts at, and its links. */
export function talkFoldHtml(talk: TalkView, root: string): Html {
  return foldHtml(`talk ${talk.number}`, html`<p>Talk ${talk.number}, started by ${talk.startedBy}.</p>${evidenceLinksHtml(talk.start ? [talk.start] : [], root)}${linksHtml(talk.links, root)}`);
}

/** The fold of a compaction's links. */
export function linksFoldHtml(links: readonly LinkView[], root: string): Html {
  return foldHtml('links', linksHtml(links, root));
}

function evidenceNotesHtml(step: StepView, root: string): Html {
  const usage = step.usage;
  return html`<p><a href="${root}glossary.html#${glossaryAnchor(step.kind)}">${step.kind}</a>${step.toolName && html` · tool ${step.toolName}`}${step.flags.length > 0 && html` · ${step.flags.join(', ')}`}${
    typeof step.fragments === 'number' && html` · ${counted(step.fragments, 'fragment', 'fragments')}`
  }</p>${step.qualities.length > 0 && html`<ul class="qualities">${step.qualities.map((quality) => html`<li>${quality.name}: ${quality.value}</li>`)}</ul>`}${
    usage && html`<p class="usage">tokens: input ${usage.input ?? '–'}, output ${usage.output ?? '–'}, cache read ${usage.cache_read ?? '–'}, cache write ${usage.cache_write ?? '–'}</p>`
  }${evidenceLinksHtml(step.evidence, root)}${linksHtml(step.links, root)}${step.unresolved.map((entry) => html`<p class="unresolved">Unresolved ${entry.kind} (${entry.state}): ${entry.meaning}</p>`)}`;
}

/** The glossary page's anchor of a term. */
export function glossaryAnchor(term: string): string {
  return `g-${term.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

/**
 * A line of links to landed rows on their evidence pages; nothing for none.
 * The landed file is named by the evidence page a link opens, not on the
 * link: a title naming it would repeat the file's path on every link of
 * every fold, a large part of a conversation page's bytes.
 */
export function evidenceLinksHtml(refs: readonly EvidenceView[], root: string): Html | undefined {
  if (refs.length === 0) return undefined;
  return html`<p class="evidence">Landed records:${refs.map((ref) =>
    ref.file
      ? html`<a href="${ref.page !== undefined ? `${root}${ref.page}` : `${root}../${ref.file}`}">{seq ${ref.seq}, row ${ref.row}}</a>`
      : html`<span> {seq ${ref.seq}, row ${ref.row}} (landed file not in the bundle)</span>`,
  )}</p>`;
}

/** A list of links to other steps, talks or paths, the reader's own marked; nothing for none. */
export function linksHtml(links: readonly LinkView[], root: string): Html | undefined {
  if (links.length === 0) return undefined;
  return html`<ul class="links">${links.map(
    (link) =>
      html`<li>${
        link.current
          ? html`<strong aria-current="page">${link.label} <span class="here">(you are here)</span></strong>`
          : link.href
            ? html`<a href="${root}${link.href}">${link.label}</a>`
            : html`<span>${link.label} (on no page)</span>`
      }${link.quality && html`<span class="quality"> correlation: ${link.quality}</span>`}${link.via && html`<span class="via"> via ${link.via}</span>`}</li>`,
  )}</ul>`;
}
