// The site as one rendering process reads it: one SiteReader per Astro build
// or kept renderer, opened on the SiteInput the site step hands it
// (site-input.ts), holding what that process has read so far. A page is
// reached through it: the page's plan, then its model (site.ts).
//
// `getStaticPaths` gets file names only, and each page loads its
// conversation lazily: whole conversations in props doubled peak memory
// (research §4.2). Pages are rendered in plan order, so the last
// conversation loaded is kept for the next page, and the kept renderer plans
// each conversation only as its pages come up (pagesAsPlanned), so that each
// conversation is read once, for its plan and its pages together.
//
// Planning a conversation renders each of its talks' HTML once and cuts its
// pages by those bytes (talk-pages.ts); a page is then its frame, rendered
// by the view, around its talks' HTML (body, placeTalks). The talks' HTML is held in a
// file until the conversation's pages are written: in the kept renderer,
// until the next conversation is planned; in an Astro build, which plans
// every conversation before it renders a page, until the build is done.

import fs from 'node:fs';
import path from 'node:path';
import { loadConversation, type BundleConversation } from '../models/bundle.ts';
import { conversationsOfBundle } from '../../bundle/manifest.ts';
import type { ConversationPlan, ConversationSummary, PagePlan } from '../models/plan.ts';
import type { ConversationStructure } from '../models/streams.ts';
import type { ConversationRows } from '../models/rows.ts';
import { writeSearchScript } from '../models/search-text.ts';
import { searchScriptOf } from '../models/page-files.ts';
import { linkedStructure, pageOutline, subagentNames, type PageBody, type PageModel } from '../models/site.ts';
import { HeldHtml, TalkPages } from './talk-pages.ts';
import { claimConversation, claimedBy, readSavedPlan, talkSizesBeside, type SavedPlan, type SelectedConversation, type SiteInput, type SiteSelection } from './site-input.ts';
import { hasEnded } from '../../files/process.ts';

export interface SitePlan {
  readonly conversations: ConversationSummary[];
  readonly pages: PagePlan[];
}

/** How often a build looks for a plan that another build is still making. */
const PLAN_POLL_MS = 20;

export class SiteReader {
  private readonly input: SiteInput;
  private readonly selection: SiteSelection;
  /** The next of the selection's conversations to plan. */
  private next = 0;
  private readonly plans = new Map<string, ConversationPlan>();
  /** The HTML of the talks of each conversation planned whose pages are still to be written. */
  private readonly talkPages = new Map<string, TalkPages>();
  /** Where the talks' HTML is held, made when the first conversation is planned. */
  private held: HeldHtml | undefined;
  /** The page whose body was given last, and what puts its talks in place (placeTalks). */
  private placing: { readonly file: string; readonly placed: (page: Buffer) => Buffer } | undefined;
  private readonly pages: PagePlan[] = [];
  private readonly pageByFile = new Map<string, PagePlan>();
  /** The selection's entries by conversation, once a page has asked for one (selectionOf). */
  private selectedById: Map<string, SelectedConversation> | undefined;
  private complete: SitePlan | undefined;
  /**
   * The conversation whose pages are being rendered, with its structure. The
   * structure holds no step's parts: each page reads those of its own steps
   * from the conversation's rows (streams.ts, withParts), which are held only
   * for a small conversation (rows.ts).
   */
  private loaded: { id: string; conversation: BundleConversation; structure: ConversationStructure } | undefined;
  /**
   * The outline made last, of the loaded conversation: a page's outline is
   * asked for to digest it (generator/page-store.ts) and then again to model
   * it, and made once for both.
   */
  private outlined: { file: string; model: PageModel } | undefined;

  /**
   * A reader of the site `input` names. With `output`, the folder its pages
   * are written into, each conversation planned with a saved plan has its
   * search script written there too, as its pages are.
   */
  constructor(
    input: SiteInput,
    private readonly output?: string,
  ) {
    this.input = input;
    this.selection = input.selection ?? { conversations: conversationsOfBundle(input.bundle).map((id) => ({ id, render: true, plan: '' })) };
  }

  /** The whole plan: every conversation this process renders planned, and the summary of every other one read from its saved plan. */
  plan(): SitePlan {
    if (this.complete) return this.complete;
    while (this.planNext() !== undefined);
    // Those another build renders are waited for only now, after this build's
    // own: that build saves each plan as it plans it.
    const conversations = this.selection.conversations.map((selected) => this.plans.get(selected.id)?.summary ?? savedPlan(selected, this.selection.claims?.folder).summary);
    this.complete = { conversations, pages: this.pages };
    return this.complete;
  }

  /**
   * The files of the pages this process renders, one conversation after
   * another, each planned only when its first page is due: once the next
   * is asked for, the pages given before it are written, and their talks'
   * HTML is let go.
   */
  *pagesAsPlanned(): Generator<string> {
    let given = 0;
    do {
      while (given < this.pages.length) yield this.pages[given++]!.file;
      this.closeTalkPages();
    } while (this.planNext() !== undefined);
  }

  /** The selection's entry of the conversation the page `file` belongs to, and the site's code, when the selection names it. */
  selectionOf(file: string): { selected: SelectedConversation; code: string | undefined } {
    return { selected: this.selected(this.plannedPage(file).conversation), code: this.selection.code };
  }

  /** The outline of the page `file` (site.ts, pageOutline), and the rows its steps' parts are read from; its conversation is planned already. */
  outline(file: string): { model: PageModel; rows: ConversationRows } {
    const page = this.plannedPage(file);
    const plan = this.plans.get(page.conversation)!;
    if (this.loaded?.id !== page.conversation) {
      this.load(undefined);
      const conversation = this.loadConversation(page.conversation);
      this.load({ id: page.conversation, conversation, structure: linkedStructure(conversation, () => plan) });
    }
    const { conversation, structure } = this.loaded!;
    if (this.outlined?.file !== file) this.outlined = { file, model: pageOutline({ conversation, structure, plan }, page) };
    return { model: this.outlined.model, rows: conversation.rows };
  }

  /** The model of the page `file` (site.ts, pageOutline), planning conversations until it comes up. */
  page(file: string): PageModel {
    this.planUntil(file);
    return this.outline(file).model;
  }

  /**
   * The body of the page `file`, from its conversation's talks rendered when
   * it was planned (talk-pages.ts): placeholders for its talks, which
   * `placeTalks` replaces in the page's bytes once the view has framed it.
   */
  body(file: string): PageBody {
    const model = this.page(file);
    const { body, placed } = this.talkPages.get(model.plan.conversation)!.body(model, this.loaded!.conversation.rows);
    this.placing = { file, placed };
    return body;
  }

  /** The bytes of the page `file`, rendered around the body `body` gave last, with its talks in place. */
  placeTalks(file: string, page: Buffer): Buffer {
    if (this.placing?.file !== file) return page;
    const { placed } = this.placing;
    this.placing = undefined;
    return placed(page);
  }

  private loadConversation(id: string): BundleConversation {
    return loadConversation(this.input.bundle, id);
  }

  /** Closes what the conversation loaded last holds open, and removes the talks' HTML held. */
  close(): void {
    this.load(undefined);
    this.closeTalkPages();
    this.held?.close();
    this.held = undefined;
  }

  /** Lets go of the talks' HTML of every conversation planned, once their pages are written. */
  private closeTalkPages(): void {
    this.talkPages.clear();
    this.held?.clear();
  }

  /** Makes `next` the conversation loaded, closing what the one before it had open. */
  private load(next: typeof this.loaded): void {
    this.loaded?.conversation.rows.close();
    this.loaded = next;
    this.outlined = undefined;
  }

  /** The plan of the page `file`, whose conversation is planned already. */
  private plannedPage(file: string): PagePlan {
    const page = this.pageByFile.get(file);
    if (page === undefined) throw new Error(`the site has no page ${file}, or it is not planned yet`);
    return page;
  }

  /** Plans conversations until the page `file` comes up. */
  private planUntil(file: string): void {
    while (!this.pageByFile.has(file)) if (this.planNext() === undefined) throw new Error(`the site has no page ${file}`);
  }

  /** Plans the next conversation this process renders and keeps it loaded for its pages; undefined once every one is planned. */
  private planNext(): ConversationPlan | undefined {
    const selected = this.nextToRender();
    if (selected === undefined) return undefined;
    const { id, plan: saved, earlier } = selected;
    this.load(undefined);
    const conversation = this.loadConversation(id);
    let linked: ConversationPlan | undefined;
    const structure = linkedStructure(conversation, () => linked);
    this.load({ id, conversation, structure });
    // Sizes are recorded where the page digests are (generator/earlier-page-records.ts): beside a saved plan, for a site's code.
    const { code } = this.selection;
    const records = code !== undefined && saved !== '' ? { code, record: talkSizesBeside(saved), ...(earlier?.talks !== undefined ? { earlier: earlier.talks } : {}) } : undefined;
    const talkPages = TalkPages.cut(conversation, structure, (this.held ??= new HeldHtml()), (plan) => (linked = plan), records);
    this.talkPages.set(id, talkPages);
    const plan = talkPages.plan;
    this.plans.set(id, plan);
    for (const page of plan.pages) {
      this.pages.push(page);
      this.pageByFile.set(page.file, page);
    }
    // The conversation's search script is written with its pages, as the
    // conversation is planned: no build holds more than one step's text of it.
    if (saved) {
      const kept: SavedPlan = { summary: plan.summary, pages: plan.pages.map((page) => page.file) };
      fs.mkdirSync(path.dirname(saved), { recursive: true });
      if (this.output !== undefined) {
        const script = path.join(this.output, searchScriptOf(id));
        fs.mkdirSync(path.dirname(script), { recursive: true });
        writeSearchScript(script, conversation, structure, plan.pageOfTalk, plan.summary.facts, subagentNames(structure, conversation));
      }
      // Under a temporary name first: another build may be waiting for it.
      fs.writeFileSync(`${saved}.${process.pid}.tmp`, `${JSON.stringify(kept)}\n`);
      fs.renameSync(`${saved}.${process.pid}.tmp`, saved);
    }
    return plan;
  }

  /**
   * The next conversation this process renders: the selection's next to
   * render or, when builds share them out as they go (SiteSelection.claims),
   * the next in their order that this one claims first.
   */
  private nextToRender(): SelectedConversation | undefined {
    const { conversations, claims } = this.selection;
    if (claims === undefined) {
      while (this.next < conversations.length) {
        const selected = conversations[this.next++]!;
        if (selected.render) return selected;
      }
      return undefined;
    }
    while (this.next < claims.order.length) {
      const id = claims.order[this.next++]!;
      if (claimConversation(claims.folder, id)) return this.selected(id);
    }
    return undefined;
  }

  private selected(id: string): SelectedConversation {
    this.selectedById ??= new Map(this.selection.conversations.map((selected) => [selected.id, selected]));
    return this.selectedById.get(id)!;
  }
}

/**
 * The saved plan of a conversation this build does not render: kept from an
 * earlier build, or saved by the build that claimed it in `claims`, which
 * is waited for as long as it runs.
 */
function savedPlan({ id, plan }: SelectedConversation, claims: string | undefined): SavedPlan {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return readSavedPlan(plan);
    } catch (error) {
      const by = claims !== undefined && (error as NodeJS.ErrnoException).code === 'ENOENT' ? claimedBy(claims, id) : undefined;
      if (by === undefined) throw error;
      // Read once more after finding it ended: it may have saved the plan and ended in between.
      if (by !== 0 && hasEnded(by) && !fs.existsSync(plan)) throw new Error(`${plan}: the build that renders conversation ${id} (process ${by}) ended without saving its plan`);
      Atomics.wait(pause, 0, 0, PLAN_POLL_MS);
    }
  }
}
