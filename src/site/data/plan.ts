// Which pages the site has, and which talks each one shows.
//
//   index.html                          every conversation
//   c/<conversation>[-N].html           the conversation: its active branch, split into numbered pages
//   b/<conversation>--<branch>[-N].html a branch that is not the active one: natural or explicit
//   s/<conversation>--<stream>[-N].html a child stream
//
// Every page is one folder below the root, so a relative link is `../` plus
// the file from the root, and works from file:// and from any sub-folder of
// a static host. Pages are split by talks so that none passes PAGE_BUDGET;
// the split uses an estimate of each talk's HTML (streams.ts). The site step
// measures the pages it rendered, and a conversation with a page over the
// budget is planned again with its estimate scaled by what was measured
// (scaleToFit, generator/site.ts).

import crypto from 'node:crypto';
import { refKey, type BundleConversation } from './bundle.ts';
import { conversationFacts, spanOf, usageOfCalls, type ConversationFacts } from './facts.ts';
import { conversationStructure, type ConversationStructure } from './streams.ts';
import type { TalkView } from './views.ts';

/** The most HTML one page may hold. The largest real sessions have 900+ talks. */
export const PAGE_BUDGET = 1024 * 1024;
/** The estimate is rough, so pages are cut well below the budget. */
const ESTIMATE_BUDGET = PAGE_BUDGET * 0.6;

/** What the site step knows of a page it rendered: its estimate, how many talks it shows, and its bytes as written. */
export interface MeasuredPage {
  readonly file: string;
  /** The estimated HTML of its talks, unscaled (streams.ts). */
  readonly weight: number;
  readonly talks: number;
  readonly bytes: number;
}

/**
 * The scale of the estimate a conversation is planned again with, when a
 * page of its render at `scale` passed PAGE_BUDGET and holds more than one
 * talk (a talk is never cut, so a page of one talk may pass it): the most
 * bytes rendered per unit of estimate on such a page, so that a page like it
 * is cut at the margin ESTIMATE_BUDGET leaves. Undefined when no page can be
 * made to fit by planning again. Splitting keeps a page of several talks
 * within ESTIMATE_BUDGET / scale, so such a page over PAGE_BUDGET measured
 * more than PAGE_BUDGET / ESTIMATE_BUDGET times `scale` per unit: the scale
 * grows each time, and a scale that would not is no correction.
 */
export function scaleToFit(pages: readonly MeasuredPage[], scale: number): number | undefined {
  let ratio: number | undefined;
  for (const { bytes, weight, talks } of pages) if (bytes > PAGE_BUDGET && talks > 1) ratio = Math.max(ratio ?? 0, bytes / weight);
  return ratio !== undefined && ratio > scale ? ratio : undefined;
}

export type PageKind = 'conversation' | 'branch' | 'stream';

export interface PagePlan {
  /** From the site root, e.g. c/<id>-2.html. */
  readonly file: string;
  readonly kind: PageKind;
  readonly conversation: string;
  /** The branch or stream the page shows; empty for the conversation. */
  readonly subject: string;
  readonly number: number;
  readonly of: number;
  /** The stream whose talks the page shows. */
  readonly stream: string;
  readonly talks: string[];
  /** Every page of the same subject, in order, for the table of pages. */
  readonly siblings: string[];
}

export interface ConversationSummary {
  readonly id: string;
  readonly title?: string;
  readonly from?: string;
  readonly to?: string;
  readonly talks: number;
  readonly streams: number;
  readonly branches: number;
  readonly bytes: number;
  readonly calls: number;
  readonly first: string;
  /** What the index shows of it (facts.ts). */
  readonly facts: ConversationFacts;
}

export interface ConversationPlan {
  readonly summary: ConversationSummary;
  readonly pages: PagePlan[];
  /** The estimated HTML of each page's talks, unscaled, by file: what its rendered bytes are measured against (scaleToFit). */
  readonly weightOfPage: Map<string, number>;
  /** The page each talk is read on (the conversation's page first, when a talk is on several). */
  readonly pageOfTalk: Map<string, string>;
  /** The first page of each stream. */
  readonly pageOfStream: Map<string, string>;
  /** The first page of each branch, by name; the active branch is the conversation page. */
  readonly pageOfBranch: Map<string, string>;
}

/** The file of a page, from the site root, of those whose names start `base`: `index` counts them from 0. */
export function pageFileOf(base: string, index: number): string {
  return `${base}${index === 0 ? '' : `-${index + 1}`}.html`;
}

/** The first page of the conversation `id`, from the site root. */
export function conversationPage(id: string): string {
  return pageFileOf(conversationPageBase(id), 0);
}

function conversationPageBase(id: string): string {
  return `c/${slug(id)}`;
}

/** A name safe in a file name on every system; anything else gets a digest so two names never meet. */
export function slug(name: string): string {
  if (/^[A-Za-z0-9._-]{1,80}$/.test(name) && !name.startsWith('.')) return name;
  return `${name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\./, '_').slice(0, 60)}_${crypto.createHash('sha256').update(name).digest('hex').slice(0, 10)}`;
}

/** The talks of the main stream that a branch's records start, by branch name. */
export function talksByBranch(conversation: BundleConversation, talks: readonly TalkView[]): Map<string, TalkView[]> {
  const byBranch = new Map<string, TalkView[]>();
  const startKey = (talk: TalkView): string | undefined => (talk.start ? `${talk.start.seq}:${talk.start.row}` : undefined);
  for (const branch of conversation.branches.branches) {
    if (branch.active) continue;
    const keys = new Set(branch.path.map(refKey));
    byBranch.set(branch.name, talks.filter((talk) => keys.has(startKey(talk) ?? '')));
  }
  for (const explicit of conversation.explicit) {
    const keys = new Set(explicit.path.map(refKey));
    byBranch.set(explicit.record.name, talks.filter((talk) => keys.has(startKey(talk) ?? '')));
  }
  return byBranch;
}

/** Groups talks into pages that each stay within the estimate budget; a talk larger than it has a page of its own. */
export function splitByWeight(talks: readonly TalkView[], budget = ESTIMATE_BUDGET): TalkView[][] {
  const pages: TalkView[][] = [[]];
  let weight = 0;
  for (const talk of talks) {
    if (pages.at(-1)!.length > 0 && weight + talk.weight > budget) {
      pages.push([]);
      weight = 0;
    }
    pages.at(-1)!.push(talk);
    weight += talk.weight;
  }
  return pages;
}

/**
 * The pages of a conversation; with `scale`, each talk's estimate is taken
 * as that many times larger (scaleToFit), as it was when the conversation's
 * pages were rendered and measured.
 */
export function planConversation(conversation: BundleConversation, structure: ConversationStructure = conversationStructure(conversation, () => undefined), scale = 1): ConversationPlan {
  const id = conversation.id;
  const pages: PagePlan[] = [];
  const weightOfPage = new Map<string, number>();
  const pageOfTalk = new Map<string, string>();
  const pageOfStream = new Map<string, string>();
  const pageOfBranch = new Map<string, string>();
  const add = (kind: PageKind, subject: string, stream: string, talks: readonly TalkView[]): string => {
    const groups = splitByWeight(talks, ESTIMATE_BUDGET / scale);
    const base = kind === 'conversation' ? conversationPageBase(id) : `${kind === 'branch' ? 'b' : 's'}/${slug(id)}--${slug(subject)}`;
    const files = groups.map((_, index) => pageFileOf(base, index));
    groups.forEach((group, index) => {
      pages.push({ file: files[index]!, kind, conversation: id, subject, number: index + 1, of: groups.length, stream, talks: group.map((talk) => talk.id), siblings: files });
      weightOfPage.set(files[index]!, group.reduce((sum, talk) => sum + talk.weight, 0));
      for (const talk of group) if (!pageOfTalk.has(talk.id)) pageOfTalk.set(talk.id, files[index]!);
    });
    return files[0]!;
  };
  const main = structure.streams.find((stream) => !stream.child);
  const byBranch = main ? talksByBranch(conversation, main.talks) : new Map<string, TalkView[]>();
  const offActive = new Set(conversation.branches.branches.filter((branch) => !branch.active).flatMap((branch) => byBranch.get(branch.name) ?? []));
  const first = add('conversation', '', main?.id ?? '', main ? main.talks.filter((talk) => !offActive.has(talk)) : []);
  if (main) pageOfStream.set(main.id, first);
  const active = conversation.branches.branches.find((branch) => branch.active);
  if (active) pageOfBranch.set(active.name, first);
  for (const [name, talks] of byBranch) pageOfBranch.set(name, add('branch', name, main?.id ?? '', talks));
  for (const stream of structure.streams) if (stream.child) pageOfStream.set(stream.id, add('stream', stream.name, stream.id, stream.talks));

  const { calls } = usageOfCalls(structure);
  const { title } = conversation;
  return {
    summary: {
      id,
      ...(title !== undefined ? { title } : {}),
      ...spanOf(structure),
      talks: structure.streams.reduce((sum, stream) => sum + stream.talks.length, 0),
      streams: structure.streams.length,
      branches: conversation.branches.branches.length + conversation.explicit.length,
      bytes: conversation.bytes,
      calls,
      first,
      facts: conversationFacts(conversation, structure),
    },
    pages,
    weightOfPage,
    pageOfTalk,
    pageOfStream,
    pageOfBranch,
  };
}
