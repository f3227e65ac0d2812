// A conversation's pages cut from its talks' HTML: each talk (and each
// compaction that opens an epoch) is rendered once, by the plain functions
// of components/, its bytes known; each subject's talks are cut into pages
// by those bytes (page-cut.ts); and each page's talks are put together from
// that same HTML when the page is written (PageBody). No page is planned
// from an estimate, and no talk is rendered twice.
//
// A talk's HTML links to other talks on whichever page holds them, which is
// not known before the cut: it is rendered with a marker in place of the
// page's number (`-2` in c/<id>-2.html), counted at its longest (the most
// digits the subject's pages can number to), and the marker is replaced
// once the pages are cut. The marker holds a random nonce, so no text of a
// transcript can be taken for one.
//
// The HTML is held in a file (HeldHtml), not in memory, from its render to
// its page's: a large conversation's talks are tens of megabytes of HTML,
// and what is held at once is one talk's model and one page's HTML.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { linksHtml } from '../components/evidence-html.ts';
import { escapeHtml } from '../components/html.ts';
import { outlineHtml } from '../components/outline.ts';
import { epochHtml, forksHtml, talkHtml, talkUnitHtml, withheldThoughts } from '../components/talks.ts';
import type { BundleConversation } from './bundle.ts';
import { timeShown } from './facts.ts';
import { cutTalks, type TalkSize } from './page-cut.ts';
import { PAGE_BUDGET } from './page-files.ts';
import { planConversation, subjectsOf, type ConversationPlan, type Subject } from './plan.ts';
import { epochWithParts, pageOutline, talkWithParts, type CodeHighlighter, type PageBody, type PageModel } from './site.ts';
import type { ConversationStructure } from './streams.ts';
import type { EpochView, LinkView, TalkView } from './views.ts';

/** From a conversation's page to the site root. */
const ROOT = '../';

/**
 * What every page holds besides its talks and what is counted apart below:
 * the head, the header, the switches, the audit's fixed words and counts,
 * the page's title with its number, the sentence on withheld thoughts. On
 * the corpus it is 2 to 6 KB.
 */
const FRAME_BYTES = 16 * 1024;
/** What a link to a page adds past the page's file name: its markup, its number, its anchor. */
const LINK_BYTES = 64;

/** Where a piece of HTML is in the file it is held in, and how many bytes it is on its page. */
interface Held {
  readonly offset: number;
  readonly length: number;
  readonly bytes: number;
}

/**
 * HTML held in a temporary file for a rendering process: one file, whatever
 * the number of conversations, whose name is removed as soon as it is open
 * where the system allows it, so that a process that ends leaves nothing.
 */
export class HeldHtml {
  private readonly folder: string;
  private readonly file: number;
  private readonly named: boolean;
  private end = 0;

  constructor() {
    this.folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sessionizer-talks-'));
    const file = path.join(this.folder, 'talks.html');
    this.file = fs.openSync(file, 'w+');
    try {
      fs.rmSync(this.folder, { recursive: true });
      this.named = false;
    } catch {
      // A system that keeps an open file's name: it goes when the file is closed.
      this.named = true;
    }
  }

  /** Holds `markup`; returns where it is. */
  hold(markup: string): { offset: number; length: number } {
    const bytes = Buffer.from(markup);
    fs.writeSync(this.file, bytes, 0, bytes.length, this.end);
    const held = { offset: this.end, length: bytes.length };
    this.end += bytes.length;
    return held;
  }

  /** The markup held at `offset`. */
  read({ offset, length }: { offset: number; length: number }): string {
    const bytes = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) read += fs.readSync(this.file, bytes, read, length - read, offset + read);
    return bytes.toString('utf8');
  }

  /** Lets go of everything held. */
  clear(): void {
    fs.ftruncateSync(this.file, 0);
    this.end = 0;
  }

  close(): void {
    fs.closeSync(this.file);
    if (this.named) fs.rmSync(this.folder, { recursive: true, force: true });
  }
}

/** The pages of one conversation, and where the HTML of its talks is held until they are written. */
export class TalkPages {
  /** The conversation's pages, as cut. */
  plan!: ConversationPlan;
  private readonly talks = new Map<string, Held & { readonly withheld: number }>();
  private readonly epochs = new Map<string, Held>();
  private readonly nonce = crypto.randomBytes(8).toString('hex');
  private readonly marker = new RegExp(`\u0000${this.nonce}:(\\d+)\u0000`, 'g');
  /** What replaces the marker of each talk: the number part of the name of the page that holds it. */
  private readonly numbers: string[] = [];

  /**
   * Renders each talk of `conversation` once, measures it, and cuts its
   * subjects into pages. `linkTo` sets the plan the structure's links are
   * resolved with (site.ts, linkedStructure): the plan with markers while
   * the talks render, then the plan as cut.
   */
  static async cut(conversation: BundleConversation, structure: ConversationStructure, held: HeldHtml, linkTo: (plan: ConversationPlan) => void, highlighter: () => Promise<CodeHighlighter>): Promise<TalkPages> {
    const pages = new TalkPages(conversation, structure, held);
    await pages.measure(linkTo, highlighter);
    return pages;
  }

  private constructor(
    private readonly conversation: BundleConversation,
    private readonly structure: ConversationStructure,
    private readonly held: HeldHtml,
  ) {}

  private async measure(linkTo: (plan: ConversationPlan) => void, highlighter: () => Promise<CodeHighlighter>): Promise<void> {
    const { conversation, structure } = this;
    const subjects = subjectsOf(conversation, structure);
    const single = planConversation(conversation, structure, subjects);
    // Each talk is numbered by the order it is first shown in, and a link to
    // it counted at the most digits its subject's pages can number to.
    const subjectOf = new Map<string, Subject>();
    for (const subject of subjects) for (const talk of subject.talks) if (!subjectOf.has(talk.id)) subjectOf.set(talk.id, subject);
    const order = [...subjectOf.keys()];
    const longest = order.map((id) => numberBytes(subjectOf.get(id)!.talks.length));
    const marked = new Map(order.map((id, index) => [id, `${subjectOf.get(id)!.base}\u0000${this.nonce}:${index}\u0000.html`]));
    linkTo({ ...single, pageOfTalk: marked });
    const onPage = (markup: string): number => {
      let bytes = Buffer.byteLength(markup);
      for (const match of markup.matchAll(this.marker)) bytes += longest[Number(match[1])]! - Buffer.byteLength(match[0]);
      return bytes;
    };

    const streams = new Map(structure.streams.map((stream) => [stream.id, stream]));
    const epochOf = (subject: Subject, talk: TalkView): EpochView | undefined => streams.get(subject.stream)?.epochs.find((epoch) => epoch.id === talk.epoch);
    const rows = conversation.rows;
    for (const subject of subjects) {
      for (const talk of subject.talks) {
        if (!this.talks.has(talk.id)) {
          const model = await talkWithParts(talk, rows, await highlighter());
          const markup = talkHtml(model, ROOT);
          this.talks.set(talk.id, { ...this.hold(markup), bytes: onPage(markup), withheld: withheldThoughts([model]) });
        }
        const epoch = epochOf(subject, talk);
        if (epoch && !this.epochs.has(epoch.id)) {
          const markup = epochHtml(await epochWithParts(epoch, rows, await highlighter()), ROOT).text;
          this.epochs.set(epoch.id, { ...this.hold(markup), bytes: onPage(markup) });
        }
      }
    }

    // What each subject's first page would show with every talk on it, its
    // links to talks as the single plan has them: what the frame of its
    // pages holds, counted at its longest below.
    const talkBytes = new Map([...this.talks].map(([id, held]) => [id, held.bytes]));
    const whole = { ...single, talkBytes };
    linkTo(whole);
    const counts = new Map<Subject, number[]>();
    for (const subject of subjects) {
      const page = single.pages.find((candidate) => candidate.file === `${subject.base}.html`)!;
      const outline = pageOutline({ conversation, structure, plan: whole }, page);
      const sizes = subject.talks.map((talk, index): TalkSize => {
        const epoch = epochOf(subject, talk);
        const forks = outline.forksAfter.get(talk.id);
        return {
          bytes: '<div></div>'.length + this.talks.get(talk.id)!.bytes + (forks ? Buffer.byteLength(forksHtml(forks, ROOT)) : 0),
          epochBytes: epoch ? this.epochs.get(epoch.id)!.bytes : 0,
          opensEpoch: epoch !== undefined && (index === 0 || subject.talks[index - 1]!.epoch !== talk.epoch),
        };
      });
      const digits = numberBytes(subject.talks.length);
      const every = FRAME_BYTES + everyPageBytes(outline, subject, digits);
      const first = firstPageBytes(outline, digits, talkBytes);
      const navigation = (most: number): number => (most > 1 ? (most + 2) * (subject.base.length + LINK_BYTES) : 0);
      const room = (most: number) => (index: number) => PAGE_BUDGET - every - navigation(most) - (index === 0 ? first : 0);
      // With room for the links to as many pages as there are talks, then
      // for as many as that cut made: more room never makes more pages, so
      // the second cut has no more pages than the links it has room for.
      const rough = cutTalks(sizes, room(Math.max(1, subject.talks.length)));
      counts.set(subject, rough.length === 1 ? rough : cutTalks(sizes, room(rough.length)));
    }
    const plan: ConversationPlan = { ...planConversation(conversation, structure, subjects, (subject) => counts.get(subject)!), talkBytes };
    for (const id of order) {
      const file = plan.pageOfTalk.get(id)!;
      this.numbers.push(file.slice(subjectOf.get(id)!.base.length, -'.html'.length));
    }
    linkTo(plan);
    this.plan = plan;
  }

  /** The talks of the page `model` shows, as HTML, from each talk's markup as it was rendered. */
  body(model: PageModel): PageBody {
    const unit = (talk: TalkView, epoch: EpochView | undefined, forks: readonly LinkView[] | undefined): string => talkUnitHtml(this.read(this.talks.get(talk.id)!), epoch && this.read(this.epochs.get(epoch.id)!), forks, ROOT);
    const talks = model.talks.map((talk) => unit(talk, model.epochBefore.get(talk.id), model.forksAfter.get(talk.id))).join('');
    const shared = model.sharedBefore?.map((talk) => unit(talk, undefined, undefined)).join('');
    return { talks: this.numbered(talks), ...(shared !== undefined ? { sharedBefore: this.numbered(shared) } : {}), withheld: model.talks.reduce((sum, talk) => sum + this.talks.get(talk.id)!.withheld, 0) };
  }

  /** `markup` with each talk's marker replaced by the number of the page that holds it. */
  private numbered(markup: string): string {
    return markup.replace(this.marker, (_, index: string) => this.numbers[Number(index)]!);
  }

  private hold(markup: string): { offset: number; length: number } {
    return this.held.hold(markup);
  }

  private read(held: Held): string {
    return this.held.read(held);
  }
}

/** The most bytes the number part of a page's name takes among `talks` talks' pages: `-` and its digits, none for one page. */
function numberBytes(talks: number): number {
  return talks > 1 ? 1 + String(talks).length : 0;
}

/**
 * What every page of a subject may show besides its talks that grows with
 * the subject: its heading (in the title, the header and its tooltip), the
 * links to the branches leaving from its talks (at the top of a page that
 * does not hold their talk), a branch's header and audit, a subagent's
 * links, and the link to the next page.
 */
function everyPageBytes(outline: PageModel, subject: Subject, digits: number): number {
  const text = (value: string | undefined): number => (value === undefined ? 0 : Buffer.byteLength(escapeHtml(value)));
  const links = (list: readonly LinkView[]): number => (list.length === 0 ? 0 : Buffer.byteLength(linksHtml(list, ROOT)!.text) + list.length * digits + LINK_BYTES);
  const forks = [...outline.forksAfter.values()].flat();
  const branch = outline.branch;
  return (
    3 * text(outline.heading) +
    links([...forks, ...outline.forksAtStart]) +
    (branch ? 2 * (text(branch.summary) + text(branch.forkPoint.label) + digits) + text(branch.labels.join(', ')) + text(branch.name) + (branch.record ? text(JSON.stringify(branch.record)) : 0) : 0) +
    links(outline.streamLinks) +
    (outline.startedBy ? text(outline.startedBy.label) + digits + LINK_BYTES : 0) +
    subject.base.length +
    LINK_BYTES
  );
}

/**
 * What a subject's first page shows besides its talks that grows with the
 * subject: its outline and its timeline, each entry counted with its page's
 * number at its longest; the conversation's overview; and a branch's shared
 * history.
 */
function firstPageBytes(outline: PageModel, digits: number, talkBytes: ReadonlyMap<string, number>): number {
  const text = (value: string | undefined): number => (value === undefined ? 0 : Buffer.byteLength(escapeHtml(value)));
  let bytes = 0;
  if (outline.outline) {
    // Every entry on a page of its own, so that each says its page.
    const entries = outline.outline.map((entry, index) => ({ ...entry, page: 2 + (index % 2) }));
    bytes += Buffer.byteLength(outlineHtml(entries, ROOT, 1)) + (entries.length + 1) * 2 * digits;
  }
  for (const entry of outline.timeline) {
    bytes += Buffer.byteLength(`<li>${entry.quiet !== undefined ? `<span class="quiet-gap">${escapeHtml(entry.quiet)}</span>` : ''}<a href="${ROOT}${escapeHtml(entry.href)}">${escapeHtml(entry.label)}</a>${entry.time !== undefined ? ` <time datetime="${escapeHtml(entry.time)}">${escapeHtml(timeShown(entry.time))}</time>` : ''}</li>`) + digits;
  }
  const overview = outline.overview;
  if (overview) {
    const links = (list: readonly LinkView[]): number => (list.length === 0 ? 0 : Buffer.byteLength(linksHtml(list, ROOT)!.text));
    bytes += links(overview.branches) + links(overview.streams);
    for (const entry of overview.unresolved) bytes += 2 * text(entry.kind) + text(entry.state) + text(entry.about) + text(entry.meaning) + LINK_BYTES * 2;
    bytes += 2 * (text(overview.project) + overview.models.reduce((sum, model) => sum + text(model), 0) + overview.gitBranches.reduce((sum, branch) => sum + text(branch), 0));
    bytes += overview.counts.reduce((sum, count) => sum + text(count.name) + text(count.value) + LINK_BYTES, 0);
  }
  for (const talk of outline.sharedBefore ?? []) bytes += '<div></div>'.length + (talkBytes.get(talk.id) ?? 0) + LINK_BYTES;
  return bytes;
}
