// Which pages the site has, and which talks each one shows; where each page
// lives is page-files.ts. Pages are split by talks so that none passes PAGE_BUDGET;
// the split uses an estimate of each talk's HTML (streams.ts). The site step
// measures the pages it rendered, and a conversation with a page over the
// budget is planned again with its estimate scaled by what was measured
// (scaleToFit, generator/site.ts).

import { conversationPageBase, ESTIMATE_BUDGET, pageFileOf, slug } from './page-files.ts';
import type { BundleConversation } from './bundle.ts';
import { conversationFacts, spanOf, usageOfCalls, type ConversationFacts } from './facts.ts';
import { conversationStructure, ownTalks, talksByBranch, type ConversationStructure } from './streams.ts';
import type { TalkView } from './views.ts';

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
  const first = add('conversation', '', main?.id ?? '', main ? ownTalks(conversation, main.talks, byBranch) : []);
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
