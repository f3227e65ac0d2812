// Pages kept from the earlier render of a conversation that changed.
//
// A conversation whose bundle files changed is rendered again, and the
// conversation that changes between two exports is most often the one a
// person is working in, which is most often the biggest: one line added to
// the biggest conversation of the 1 GB benchmark corpus (151 MB) rendered
// its pages again in a site step of 20.5 s, most of a 30.4 s export. Yet
// pages are cut from the start of a conversation (plan.ts, splitByWeight),
// only its first page shows the whole conversation (PageModel.overview), and
// only the first page of a branch or stream lists its talks (the timeline),
// so a conversation that grew keeps most of the pages it had.
//
// A page's bytes are a function of its model (data/site.ts, pageModel) and
// of the site's code, and its model one of its outline (pageOutline) and
// the rows its steps cite. So each page the kept renderer renders has the
// digest of the three recorded beside its conversation's plan, and a page whose
// digest is the one its conversation's earlier render recorded is the file
// of that render, linked from the cache of finished pages (generator/site.ts
// offers the earlier entry only when its files are still those it kept)
// rather than rendered and highlighted again. One line added to the 200 MB
// benchmark corpus's biggest conversation (30 MB, 45 pages): 4 pages built
// and 41 kept, a site step of 2.54-2.56 s against 4.53-4.58 s.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ConversationRows } from './rows.ts';
import { bundleOfBuild, pageOutline, pageSelection, stepsOfPage, type EarlierPages, type PageModel } from './site.ts';
import type { StepView } from './views.ts';
import { ValueDigest, type LeaveOut } from './value-digest.ts';

/** What is recorded of a conversation's pages beside its plan: each page's digest, and whether it was kept from the earlier render. */
export interface PageDigests {
  /** The site's code the pages were rendered with (generator/kept-renderer.ts, siteCode). */
  readonly code: string;
  readonly pages: Record<string, { readonly digest: string; readonly kept: boolean }>;
}

/** Where the page digests of the conversation whose plan is saved at `plan` are recorded, beside it. */
export function pageDigestsBeside(plan: string): string {
  return plan.replace(/\.json$/, '.pages.jsonl');
}

// The record is a line naming the code, then a line for each page as it is
// rendered or kept: appended, so that recording a conversation's pages one by
// one writes each page's line once.

/** The page digests recorded beside a plan; none when there are none or they cannot be read. */
export function readPageDigests(file: string): PageDigests | undefined {
  try {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    // The last piece is what follows the last newline: nothing, or a line cut short.
    const [head, ...pages] = lines.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
    if (typeof head?.code !== 'string') return undefined;
    const digests: PageDigests = { code: head.code, pages: {} };
    for (const { page, digest, kept } of pages) {
      if (typeof page === 'string' && typeof digest === 'string') (digests.pages as Record<string, { digest: string; kept: boolean }>)[page] = { digest, kept: kept === true };
    }
    return digests;
  } catch {
    return undefined;
  }
}

/**
 * The digest of a page: the site's code, the page's file and its model.
 * Highlighted HTML is left out: it is a function of the code and of the
 * segment's text and language, which are in, and it is filled in only on
 * the pages rendered, so a page's model holds it or not depending on which
 * pages of the same talks were rendered before it.
 *
 * With `rows`, the model is an outline (site.ts, pageOutline), whose steps
 * hold no parts, and what names every row its steps cite is taken in, in
 * the order they are cited: the SHA-256 of the row's `.sd` and its row
 * number (rows.ts, citeOf). A step's parts are a function of the code and of
 * those rows. After one line was added to the 1 GB benchmark corpus's
 * biggest conversation (151 MB), reading its rows' parts to digest its 182
 * pages took the site step from 5.2 s to 7.7 s; reading each cited row's
 * bytes instead cost 0.9 s of reading over a first export's site.
 */
export function pageDigest(model: PageModel, file: string, code: string, rows?: ConversationRows): string {
  const hash = crypto.createHash('sha256');
  const digest = new ValueDigest(hash, highlighting);
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

/** The highlighted HTML beside a segment's text (see pageDigest). */
const highlighting: LeaveOut = { key: 'html', when: (holder) => typeof (holder as { text?: unknown }).text === 'string' };

// The records started by this process, and the earlier ones read, by their files.
const started = new Set<string>();
const earlierRead = new Map<string, PageDigests | undefined>();

/**
 * The folder holding the page `file` as its conversation's earlier render
 * wrote it, in the cache of finished pages, when its digest is the one that
 * render recorded; undefined when it must be rendered. Either way its digest
 * is recorded for the next render. A build with no selection (every
 * conversation rendered, nothing kept) records nothing and keeps nothing.
 */
export function keptPage(file: string, bundle = bundleOfBuild()): string | undefined {
  const { selected, code } = pageSelection(file, bundle);
  if (code === undefined || selected.plan === '') return undefined;
  const { model, rows } = pageOutline(file, bundle);
  const digest = pageDigest(model, file, code, rows);
  const earlier = selected.earlier !== undefined ? earlierFolder(selected.earlier, file, digest) : undefined;
  record(pageDigestsBeside(selected.plan), code, file, digest, earlier !== undefined);
  return earlier;
}

function earlierFolder(earlier: EarlierPages, file: string, digest: string): string | undefined {
  if (!earlierRead.has(earlier.digests)) earlierRead.set(earlier.digests, readPageDigests(earlier.digests));
  if (earlierRead.get(earlier.digests)?.pages[file]?.digest !== digest) return undefined;
  try {
    return fs.statSync(path.join(earlier.files, file)).isFile() ? earlier.files : undefined;
  } catch {
    return undefined;
  }
}

// Each page's line is written as the page is done rather than all at the
// end: a page of the conversation may be the last this process renders. A
// render that stops half way leaves a record of the pages it did, which is
// never read, as its entry is never made complete (generator/site.ts).
function record(file: string, code: string, page: string, digest: string, kept: boolean): void {
  const line = `${JSON.stringify({ page, digest, kept })}\n`;
  if (started.has(file)) {
    fs.appendFileSync(file, line);
    return;
  }
  // Started afresh: what an interrupted render left there is not this one's.
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ code })}\n${line}`);
  started.add(file);
}
