// A conversation's pages cut from its talks' HTML: each talk (and each
// compaction that opens an epoch) is rendered once, by the plain functions
// of views/, its bytes known; each subject's talks are cut into pages
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
import { linksHtml } from '../views/evidence-html.ts';
import { escapeHtml } from '../views/html.ts';
import { outlineHtml, timelineEntryHtml } from '../views/outline.ts';
import { epochHtml, forksHtml, talkHtml, talkUnitHtml, withheldThoughts } from '../views/talks.ts';
import type { BundleConversation } from '../models/bundle.ts';
import { cutTalks, type TalkSize } from '../models/page-cut.ts';
import { PAGE_BUDGET } from '../models/page-files.ts';
import { planConversation, subjectsOf, type ConversationPlan, type Subject } from '../models/plan.ts';
import { epochWithParts, pageOutline, talkWithParts, type PageBody, type PageModel } from '../models/site.ts';
import { viewDigest } from '../models/view-digests.ts';
import type { ConversationRows } from '../models/rows.ts';
import type { ConversationStructure } from '../models/streams.ts';
import type { EpochView, LinkView, TalkView } from '../models/views.ts';

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

/** The HTML of a talk, or of the compaction that opens an epoch, with its steps' parts read from `rows`, and how many of its thoughts the source withheld. */
function unitHtml(unit: { talk: TalkView } | { epoch: EpochView }, rows: ConversationRows): { html: string; withheld: number } {
  if ('epoch' in unit) return { html: epochHtml(epochWithParts(unit.epoch, rows), ROOT).text, withheld: 0 };
  const talk = talkWithParts(unit.talk, rows);
  return { html: talkHtml(talk, ROOT), withheld: withheldThoughts([talk]) };
}

/** Where a piece of HTML is in the file it is held in. */
interface Held {
  readonly offset: number;
  readonly length: number;
}

/** A talk's, or an epoch opening's, HTML: how many bytes it is on its page, and where it is held once rendered. */
interface Measured {
  readonly bytes: number;
  /** How many of its thoughts had their text withheld (views/talks.ts, withheldThoughts); 0 for an epoch. */
  readonly withheld: number;
  held?: Held;
}

/**
 * The sizes of a conversation's talks and epoch openings as a render
 * measured them, by id, with the digest of each (view-digests.ts,
 * viewDigest), saved beside its plan (site-input.ts, talkSizesBeside): the
 * next render of the conversation takes the size of each whose digest did
 * not change, and renders it only if a page to write shows it.
 */
interface TalkSizes {
  readonly code: string;
  readonly talks: Record<string, SizeRecord>;
  readonly epochs: Record<string, SizeRecord>;
}

/** A talk's or an epoch opening's size as recorded, with the digest it was measured for. */
interface SizeRecord {
  readonly digest: string;
  readonly bytes: number;
  readonly withheld: number;
}

/** Where a render finds the sizes its conversation's earlier render recorded, and records its own; with the site's code they are digested with. */
export interface TalkSizeRecords {
  readonly code: string;
  readonly earlier?: string;
  readonly record?: string;
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

  /** Holds the markup `bytes`; returns where they are. */
  hold(bytes: Buffer): Held {
    fs.writeSync(this.file, bytes, 0, bytes.length, this.end);
    const held = { offset: this.end, length: bytes.length };
    this.end += bytes.length;
    return held;
  }

  /** The bytes of the markup held at `offset`. */
  bytes({ offset, length }: Held): Buffer {
    const bytes = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) read += fs.readSync(this.file, bytes, read, length - read, offset + read);
    return bytes;
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
  private readonly talks = new Map<string, Measured>();
  private readonly epochs = new Map<string, Measured>();
  private readonly nonce = crypto.randomBytes(8).toString('hex');
  /** How every marker starts (markerOf): ASCII, so that its bytes are its characters. */
  private readonly markerPrefix = `\u0000${this.nonce}:`;
  private readonly markerStart = Buffer.from(this.markerPrefix);
  /**
   * What stands, with the nonce as a marker does, for a unit's held markup in
   * the frame talkUnitHtml makes around it (split where they stand), and for
   * a page's runs of talks in the view's HTML (PageBody).
   */
  private readonly standIns = {
    talk: `\u0000${this.nonce}.talk\u0000`,
    epoch: `\u0000${this.nonce}.epoch\u0000`,
    split: new RegExp(`\u0000${this.nonce}\\.(?:talk|epoch)\u0000`),
    talks: `\u0000${this.nonce}.talks\u0000`,
    sharedBefore: `\u0000${this.nonce}.shared\u0000`,
  };
  /** What replaces the marker of each talk: the number part of the name of the page that holds it. */
  private readonly numbers: string[] = [];

  /**
   * Renders each talk of `conversation` once, measures it, and cuts its
   * subjects into pages. `linkTo` sets the plan the structure's links are
   * resolved with (site.ts, linkedStructure): the plan with markers while
   * the talks render, then the plan as cut. With `records`, a talk whose
   * digest is the one the earlier render recorded is measured as it was
   * then, and rendered only when a page to write shows it (body).
   */
  static cut(conversation: BundleConversation, structure: ConversationStructure, held: HeldHtml, linkTo: (plan: ConversationPlan) => void, records?: TalkSizeRecords): TalkPages {
    const pages = new TalkPages(conversation, structure, held);
    pages.measure(linkTo, records);
    return pages;
  }

  private constructor(
    private readonly conversation: BundleConversation,
    private readonly structure: ConversationStructure,
    private readonly held: HeldHtml,
  ) {}

  private measure(linkTo: (plan: ConversationPlan) => void, records: TalkSizeRecords | undefined): void {
    const { conversation, structure } = this;
    const subjects = subjectsOf(conversation, structure);
    const single = planConversation(conversation, structure, subjects);
    // Each talk is numbered by the order it is first shown in, and a link to
    // it counted at the most digits its subject's pages can number to.
    const subjectOf = new Map<string, Subject>();
    for (const subject of subjects) for (const talk of subject.talks) if (!subjectOf.has(talk.id)) subjectOf.set(talk.id, subject);
    const order = [...subjectOf.keys()];
    const longest = order.map((id) => numberBytes(subjectOf.get(id)!.talks.length));
    const streams = new Map(structure.streams.map((stream) => [stream.id, stream]));
    const epochOf = (subject: Subject, talk: TalkView): EpochView | undefined => streams.get(subject.stream)?.epochs.find((epoch) => epoch.id === talk.epoch);
    const rows = conversation.rows;

    // Digested with each link to a talk as its marker stands for it, at its
    // longest, which is what its size was measured with.
    const digests = new Map<string, string>();
    const earlier = records && readTalkSizes(records.earlier, records.code);
    if (records) {
      linkTo({ ...single, pageOfTalk: new Map(order.map((id, index) => [id, `${subjectOf.get(id)!.base}\u0000${longest[index]}\u0000.html`])) });
      for (const subject of subjects) {
        for (const talk of subject.talks) {
          if (!digests.has(talk.id)) digests.set(talk.id, viewDigest(talk, records.code, rows));
          const epoch = epochOf(subject, talk);
          if (epoch && !digests.has(epoch.id)) digests.set(epoch.id, viewDigest(epoch, records.code, rows));
        }
      }
    }
    const known = (id: string, of: ReadonlyMap<string, SizeRecord> | undefined): Measured | undefined => {
      const record = of?.get(id);
      return record !== undefined && record.digest === digests.get(id) ? { bytes: record.bytes, withheld: record.withheld } : undefined;
    };

    const marked = new Map(order.map((id, index) => [id, `${subjectOf.get(id)!.base}${this.markerOf(index)}.html`]));
    linkTo({ ...single, pageOfTalk: marked });
    const onPage = (markup: Buffer): number => {
      let bytes = markup.length;
      for (const { start, end, index } of this.markersIn(markup)) bytes += longest[index]! - (end - start);
      return bytes;
    };

    // Each talk and epoch opening once, in the order they are first shown.
    const units: ({ talk: TalkView } | { epoch: EpochView })[] = [];
    const listed = new Set<string>();
    for (const subject of subjects) {
      for (const talk of subject.talks) {
        if (!listed.has(`talk ${talk.id}`)) units.push({ talk });
        listed.add(`talk ${talk.id}`);
        const epoch = epochOf(subject, talk);
        if (epoch && !listed.has(`epoch ${epoch.id}`)) units.push({ epoch });
        if (epoch) listed.add(`epoch ${epoch.id}`);
      }
    }
    for (const unit of units) {
      const [measuredUnits, id] = 'talk' in unit ? [this.talks, unit.talk.id] : [this.epochs, unit.epoch.id];
      const measured = known(id, 'talk' in unit ? earlier?.talks : earlier?.epochs);
      if (measured !== undefined) {
        measuredUnits.set(id, measured);
        continue;
      }
      const { html, withheld } = unitHtml(unit, rows);
      const markup = Buffer.from(html);
      measuredUnits.set(id, { bytes: onPage(markup), held: this.held.hold(markup), withheld });
    }
    if (records?.record !== undefined) {
      const sizes = (of: ReadonlyMap<string, Measured>): Record<string, SizeRecord> => Object.fromEntries([...of].map(([id, { bytes, withheld }]) => [id, { digest: digests.get(id)!, bytes, withheld }]));
      writeTalkSizes(records.record, { code: records.code, talks: sizes(this.talks), epochs: sizes(this.epochs) });
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

  /**
   * The talks of the page `model` shows, from each talk's markup as it was
   * rendered. A talk measured by its earlier render's record is rendered
   * now, once, from `rows`, with its links to the pages as cut. The body the
   * view puts its frame around holds a placeholder for each run of talks;
   * `placed` puts the talks' held bytes in their place in the page's bytes,
   * their markers numbered there: decoded for the page and encoded again,
   * each talk's markup was copied twice more, about a sixth of what a
   * renderer child allocated (bench/results/site-step-2026-12-06-stop-45.md).
   */
  body(model: PageModel, rows: ConversationRows): { body: PageBody; placed: (page: Buffer) => Buffer } {
    // A unit measured by its earlier render's record is rendered and held now, once.
    const heldOf = (measured: Measured, render: () => string): Buffer => {
      if (measured.held !== undefined) return this.held.bytes(measured.held);
      const markup = Buffer.from(render());
      measured.held = this.held.hold(markup);
      return markup;
    };
    const talkOf = (talk: TalkView): Buffer => heldOf(this.talks.get(talk.id)!, () => unitHtml({ talk }, rows).html);
    const epochOf = (epoch: EpochView): Buffer => heldOf(this.epochs.get(epoch.id)!, () => unitHtml({ epoch }, rows).html);
    // Each unit is framed by talkUnitHtml, around stand-ins for its held markup.
    const units = (talks: readonly TalkView[], withEpochs: boolean): Buffer[] => {
      const pieces: Buffer[] = [];
      for (const talk of talks) {
        const epoch = withEpochs ? model.epochBefore.get(talk.id) : undefined;
        const frame = talkUnitHtml(this.standIns.talk, epoch && this.standIns.epoch, withEpochs ? model.forksAfter.get(talk.id) : undefined, ROOT).split(this.standIns.split);
        const talkBytes = talkOf(talk);
        const held = epoch ? [epochOf(epoch), talkBytes] : [talkBytes];
        for (const [index, part] of frame.entries()) {
          this.numbered(Buffer.from(part), pieces);
          if (index < held.length) this.numbered(held[index]!, pieces);
        }
      }
      return pieces;
    };
    const talks = units(model.talks, true);
    const shared = model.sharedBefore && units(model.sharedBefore, false);
    const { standIns } = this;
    const body: PageBody = { talks: standIns.talks, ...(shared !== undefined ? { sharedBefore: standIns.sharedBefore } : {}), withheld: model.talks.reduce((sum, talk) => sum + this.talks.get(talk.id)!.withheld, 0) };
    return {
      body,
      placed: (page) => placeAt(page, [{ placeholder: standIns.talks, pieces: talks }, ...(shared !== undefined ? [{ placeholder: standIns.sharedBefore, pieces: shared }] : [])]),
    };
  }

  /** The marker that stands for the number of the page holding the talk first shown `index`th. */
  private markerOf(index: number): string {
    return `${this.markerPrefix}${index}\u0000`;
  }

  /** Each marker in `markup` (markerOf), where it starts and ends and the talk it stands for. */
  private *markersIn(markup: Buffer): Generator<{ start: number; end: number; index: number }> {
    const from = this.markerStart;
    for (let start = markup.indexOf(from); start >= 0; start = markup.indexOf(from, start + 1)) {
      let at = start + from.length;
      let index = 0;
      for (; at < markup.length && markup[at]! >= 0x30 && markup[at]! <= 0x39; at++) index = index * 10 + markup[at]! - 0x30;
      if (at === start + from.length || markup[at] !== 0) continue;
      yield { start, end: at + 1, index };
      start = at;
    }
  }

  /** `markup` added to `pieces` with each marker replaced by the number of the page that holds its talk. */
  private numbered(markup: Buffer, pieces: Buffer[]): void {
    let copied = 0;
    for (const { start, end, index } of this.markersIn(markup)) {
      pieces.push(markup.subarray(copied, start), Buffer.from(this.numbers[index]!));
      copied = end;
    }
    pieces.push(copied === 0 ? markup : markup.subarray(copied));
  }
}

/** `page` with each run's `pieces` in place of the first `placeholder` of it the page holds, in one copy of the page; a run whose placeholder it does not hold is left out. */
function placeAt(page: Buffer, runs: readonly { readonly placeholder: string; readonly pieces: readonly Buffer[] }[]): Buffer {
  const found = runs
    .map(({ placeholder, pieces }) => ({ at: page.indexOf(placeholder), length: Buffer.byteLength(placeholder), pieces }))
    .filter(({ at }) => at >= 0)
    .sort((a, b) => a.at - b.at);
  if (found.length === 0) return page;
  const parts: Buffer[] = [];
  let copied = 0;
  for (const { at, length, pieces } of found) {
    parts.push(page.subarray(copied, at), ...pieces);
    copied = at + length;
  }
  parts.push(page.subarray(copied));
  return Buffer.concat(parts);
}

/** The sizes recorded at `file` for the site's `code`; none when there are none or they are of other code. */
function readTalkSizes(file: string | undefined, code: string): { talks: Map<string, SizeRecord>; epochs: Map<string, SizeRecord> } | undefined {
  if (file === undefined) return undefined;
  try {
    const sizes = JSON.parse(fs.readFileSync(file, 'utf8')) as TalkSizes;
    if (sizes.code !== code) return undefined;
    // Maps: a talk's id is read from the bundle, and none may find a property of an object's prototype.
    return { talks: new Map(Object.entries(sizes.talks)), epochs: new Map(Object.entries(sizes.epochs)) };
  } catch {
    return undefined;
  }
}

/** Saves `sizes` at `file`, under a temporary name first, so that a render stopped half way leaves none to be read. */
function writeTalkSizes(file: string, sizes: TalkSizes): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.${process.pid}.tmp`, JSON.stringify(sizes));
  fs.renameSync(`${file}.${process.pid}.tmp`, file);
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
    bytes += Buffer.byteLength(timelineEntryHtml(entry, ROOT)) + digits;
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
