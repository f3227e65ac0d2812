// The digests of a page and of a talk's view: plain functions of their
// models, by which the generator's caches keep a page from its conversation's
// earlier render rather than render it again (generator/page-store.ts), and
// take a talk's size from there (talk-pages.ts). They hold nothing.
//
// A conversation whose bundle files changed is rendered again, and the
// conversation that changes between two exports is most often the one a
// person is working in, which is most often the biggest. Yet pages are cut
// from the start of a conversation (page-cut.ts), only its first
// page shows the whole conversation (PageModel.overview), and only the first
// page of a branch or stream lists its talks (the timeline), so a
// conversation that grew keeps most of the pages it had.
//
// A page's bytes are a function of its model (site.ts, pageModel) and of
// the site's code, and its model one of its outline (pageOutline) and the
// rows its steps cite. So each page the kept renderer renders has the digest
// of the three recorded beside its conversation's plan, and a page whose
// digest is the one its conversation's earlier render recorded is the file
// of that render, rather than rendered again. What this
// saves is in bench/results/measurements-behind-choices.md.

import crypto from 'node:crypto';
import type { ConversationRows } from './rows.ts';
import { stepsOfPage, type PageModel } from './site.ts';
import { stepsOfTalk } from './streams.ts';
import type { EpochView, StepView, TalkView } from './views.ts';
import { ValueDigest } from './value-digest.ts';

/**
 * The digest of a page: the site's code, the page's file and its model.
 * With `rows`, the model is an outline (site.ts, pageOutline), whose steps
 * hold no parts, and what names every row its steps cite is taken in, in
 * the order they are cited: the SHA-256 of the row's `.sd` and its row
 * number (rows.ts, citeOf). A step's parts are a function of the code and of
 * those rows, and naming the rows is far cheaper than reading their parts
 * (bench/results/measurements-behind-choices.md).
 */
export function pageDigest(model: PageModel, file: string, code: string, rows?: ConversationRows): string {
  const hash = crypto.createHash('sha256');
  const digest = new ValueDigest(hash);
  digest.text(code);
  digest.text(file);
  digest.value(model);
  digest.flush();
  if (rows !== undefined) {
    const cite = (steps: readonly StepView[]): void => {
      for (const step of steps) {
        for (const ref of step.evidence) hash.update(`${ref.seq}:${ref.row}:${rows.citeOf(ref) ?? 'none'}\n`);
        cite(step.children);
      }
    };
    cite(stepsOfPage(model));
  }
  return hash.digest('hex');
}

/**
 * The digest of a talk's HTML, or of an epoch's opening: the site's code,
 * its model without parts, with its links as they stand before the pages are
 * cut (generator/talk-pages.ts), and what names every row its steps cite
 * (pageDigest). A talk whose digest is the one its conversation's earlier
 * render recorded renders to as many bytes, so its size is taken from there.
 */
export function viewDigest(view: TalkView | EpochView, code: string, rows: ConversationRows): string {
  const hash = crypto.createHash('sha256');
  const digest = new ValueDigest(hash);
  digest.text(code);
  digest.value(view);
  digest.flush();
  const cite = (steps: readonly StepView[]): void => {
    for (const step of steps) {
      for (const ref of step.evidence) hash.update(`${ref.seq}:${ref.row}:${rows.citeOf(ref) ?? 'none'}\n`);
      cite(step.children);
    }
  };
  cite('steps' in view ? view.steps : stepsOfTalk(view));
  return hash.digest('hex');
}
