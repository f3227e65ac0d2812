// Which pages the site has, and which talks each one shows; where each page
// lives is page-files.ts. A conversation's talks are shown by subjects (its
// active branch, its other branches, its child streams), and each subject's
// talks are cut into pages by the size of their rendered HTML (page-cut.ts),
// so that no page passes PAGE_BUDGET unless it holds one talk alone.

import { conversationPageBase, pageFileOf, slug } from './page-files.ts';
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
  /** The bytes of each talk's HTML as rendered (page-cut.ts), by talk; none when the plan was not cut by size. */
  readonly talkBytes?: ReadonlyMap<string, number>;
  /** The page each talk is read on (the conversation's page first, when a talk is on several). */
  readonly pageOfTalk: Map<string, string>;
  /** The first page of each stream. */
  readonly pageOfStream: Map<string, string>;
  /** The first page of each branch, by name; the active branch is the conversation page. */
  readonly pageOfBranch: Map<string, string>;
}

/** The talks one page name starts with shows: the conversation's active branch, another branch, or a child stream. */
export interface Subject {
  readonly kind: PageKind;
  /** The branch or stream; empty for the conversation. */
  readonly subject: string;
  readonly stream: string;
  /** What the name of each of its pages starts with (pageFileOf). */
  readonly base: string;
  readonly talks: readonly TalkView[];
}

/**
 * What a conversation's pages show, subject by subject, before they are
 * cut: its active branch, its other branches, its child streams. A talk on
 * several is read on the first (the conversation's page first).
 */
export function subjectsOf(conversation: BundleConversation, structure: ConversationStructure): Subject[] {
  const id = conversation.id;
  const subjects: Subject[] = [];
  const add = (kind: PageKind, subject: string, stream: string, talks: readonly TalkView[]): void => {
    subjects.push({ kind, subject, stream, base: kind === 'conversation' ? conversationPageBase(id) : `${kind === 'branch' ? 'b' : 's'}/${slug(id)}--${slug(subject)}`, talks });
  };
  const main = structure.streams.find((stream) => !stream.child);
  const byBranch = main ? talksByBranch(conversation, main.talks) : new Map<string, TalkView[]>();
  add('conversation', '', main?.id ?? '', main ? ownTalks(conversation, main.talks, byBranch) : []);
  for (const [name, talks] of byBranch) add('branch', name, main?.id ?? '', talks);
  for (const stream of structure.streams) if (stream.child) add('stream', stream.name, stream.id, stream.talks);
  return subjects;
}

/**
 * The pages of a conversation: each subject's talks cut into pages by
 * `cut`, which says how many talks each page of a subject holds, in order
 * (page-cut.ts cuts them by their rendered size); by default every subject
 * is one page.
 */
export function planConversation(conversation: BundleConversation, structure: ConversationStructure = conversationStructure(conversation, () => undefined), subjects: readonly Subject[] = subjectsOf(conversation, structure), cut: (subject: Subject) => readonly number[] = (subject) => [subject.talks.length]): ConversationPlan {
  const id = conversation.id;
  const pages: PagePlan[] = [];
  const pageOfTalk = new Map<string, string>();
  const pageOfStream = new Map<string, string>();
  const pageOfBranch = new Map<string, string>();
  const firstOf = new Map<Subject, string>();
  for (const subject of subjects) {
    const counts = cut(subject);
    const files = counts.map((_, index) => pageFileOf(subject.base, index));
    let next = 0;
    counts.forEach((count, index) => {
      const group = subject.talks.slice(next, (next += count));
      pages.push({ file: files[index]!, kind: subject.kind, conversation: id, subject: subject.subject, number: index + 1, of: counts.length, stream: subject.stream, talks: group.map((talk) => talk.id), siblings: files });
      for (const talk of group) if (!pageOfTalk.has(talk.id)) pageOfTalk.set(talk.id, files[index]!);
    });
    firstOf.set(subject, files[0]!);
  }
  const [conversationSubject, ...others] = subjects;
  const first = firstOf.get(conversationSubject!)!;
  const main = structure.streams.find((stream) => !stream.child);
  if (main) pageOfStream.set(main.id, first);
  const active = conversation.branches.branches.find((branch) => branch.active);
  if (active) pageOfBranch.set(active.name, first);
  for (const subject of others) {
    if (subject.kind === 'branch') pageOfBranch.set(subject.subject, firstOf.get(subject)!);
    else pageOfStream.set(subject.stream, firstOf.get(subject)!);
  }

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
    pageOfTalk,
    pageOfStream,
    pageOfBranch,
  };
}
