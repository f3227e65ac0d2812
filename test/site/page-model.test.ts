// A page's model comes from plain functions of its conversation and its plan
// (models/site.ts), with no Astro: the outline, then its steps' parts. The site reader (generator/site-reader.ts) only loads and
// plans what those functions are given, once per process.

import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS, INDEX_FACTS } from '../../scripts/write-fixtures.ts';
import { loadConversation } from '../../src/site/models/bundle.ts';
import { planConversation, type ConversationPlan } from '../../src/site/models/plan.ts';
import { indexModel, linkedStructure, pageOutline, searchModel, stepsOfPage, talkWithParts, type PageModel, type PlannedConversation } from '../../src/site/models/site.ts';
import { SiteReader } from '../../src/site/generator/site-reader.ts';
import type { Segment, StepView } from '../../src/site/models/views.ts';
import { exportedSessions } from '../helpers.ts';

const sessions = [FIXTURE_SESSIONS.hostileMarkup, FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.indexFacts, FIXTURE_SESSIONS.nestedAgents];
let bundle: string;
beforeAll(async () => {
  bundle = path.join(await exportedSessions(sessions, { site: false }), 'bundle');
});

/** A conversation loaded and planned as the site reader plans it. */
function planned(id: string): PlannedConversation {
  const conversation = loadConversation(bundle, id);
  let plan: ConversationPlan | undefined;
  const structure = linkedStructure(conversation, () => plan);
  plan = planConversation(conversation, structure);
  return { conversation, structure, plan };
}

/** Every step of a page, however deep. */
function everyStep(model: PageModel): StepView[] {
  const flatten = (step: StepView): StepView[] => [step, ...step.children.flatMap(flatten)];
  return stepsOfPage(model).flatMap(flatten);
}

describe('a page model made by plain functions', () => {
  it('outlines a page without its steps’ parts, the same every time', () => {
    const conversation = planned(FIXTURE_SESSIONS.hostileMarkup);
    const page = conversation.plan.pages[0]!;
    const outline = pageOutline(conversation, page);
    expect(outline.plan).toBe(page);
    expect(outline.overview?.summary.id).toBe(FIXTURE_SESSIONS.hostileMarkup);
    expect(everyStep(outline).length).toBeGreaterThan(0);
    expect(everyStep(outline).flatMap((step) => step.parts)).toEqual([]);
    expect(pageOutline(planned(FIXTURE_SESSIONS.hostileMarkup), page)).toEqual(outline);
    conversation.conversation.rows.close();
  });

  it('reads the parts of every step, its code in its language and its prose apart', () => {
    const conversation = planned(FIXTURE_SESSIONS.hostileMarkup);
    const outline = pageOutline(conversation, conversation.plan.pages[0]!);
    const talks: PageModel['talks'] = outline.talks.map((talk) => talkWithParts(talk, conversation.conversation.rows));
    const model = { ...outline, talks };
    const segments: Segment[] = everyStep(model).flatMap((step) => step.parts).flatMap((part) => part.segments);
    expect(segments.length).toBeGreaterThan(0);
    expect(segments.map((segment) => segment.language)).toContain('html');
    expect(segments.some((segment) => segment.language === undefined)).toBe(true);
    // The model holds what the page shows, nothing highlighted: the browser highlights code as it is shown.
    expect(segments.every((segment) => Object.keys(segment).every((key) => key === 'text' || key === 'language'))).toBe(true);
    // The outline it was made from is left as it was.
    expect(everyStep(outline).flatMap((step) => step.parts)).toEqual([]);
    conversation.conversation.rows.close();
  });

  it('is the model the site reader gives a page', async () => {
    const site = new SiteReader({ bundle });
    const [first] = site.plan().pages;
    const conversation = planned(first!.conversation);
    const plain = pageOutline(conversation, conversation.plan.pages.find((page) => page.file === first!.file)!);
    expect(site.page(first!.file)).toEqual(plain);
    site.close();
    conversation.conversation.rows.close();
  });

  it('gives a branch page the timeline of its own path, and the conversation’s first page that of every path', () => {
    const conversation = planned(FIXTURE_SESSIONS.rewind);
    const { plan } = conversation;
    const first = pageOutline(conversation, plan.pages[0]!);
    const branches = plan.pages.filter((page) => page.kind === 'branch' && page.number === 1);
    expect(branches.length).toBeGreaterThan(0);
    const pageOf = (href: string): string => href.split('#')[0]!;
    // The first page lists the talks of every path, those on branch pages too.
    expect(first.timeline.some(({ href }) => pageOf(href).startsWith('b/'))).toBe(true);
    for (const page of branches) {
      const outline = pageOutline(conversation, page);
      expect(outline.timeline.length).toBeGreaterThan(0);
      expect(outline.timeline.every(({ href }) => page.siblings.includes(pageOf(href)))).toBe(true);
      const own = first.timeline.filter(({ href }) => page.siblings.includes(pageOf(href)));
      const talk = ({ label, href, time }: (typeof own)[number]): object => ({ label, href, time });
      expect(outline.timeline.map(talk)).toEqual(own.map(talk));
    }
    conversation.conversation.rows.close();
  });

  it('outlines the prompts of a conversation on its first page: each by its first typed line, a command as its page sums it up, linked to its talk', () => {
    const conversation = planned(FIXTURE_SESSIONS.indexFacts);
    const [first] = conversation.plan.pages;
    const { outline } = pageOutline(conversation, first!);
    const talks = conversation.structure.streams.find((stream) => !stream.child)!.talks;
    expect(outline?.map((entry) => entry.href)).toEqual(talks.map((talk) => `${first!.file}#${talk.anchor}`));
    expect(outline?.every((entry) => entry.page === 1 && entry.time !== undefined)).toBe(true);
    const labels = outline!.map((entry) => entry.label);
    // The command's talk is read as its runtime row reads; the IDE's note before a prompt is not the prompt.
    expect(labels.some((label) => label.includes('/model') && label.includes('sonnet') && !label.includes('<'))).toBe(true);
    expect(labels).toContain(INDEX_FACTS.prompt);
    expect(labels).toContain('Show me the log.');
    // A conversation of one prompt has no outline.
    const single = planned(FIXTURE_SESSIONS.hostileMarkup);
    expect(pageOutline(single, single.plan.pages[0]!).outline).toBeUndefined();
    conversation.conversation.rows.close();
    single.conversation.rows.close();
  });

  it('counts in the header the prompts its outline lists, those of the conversation’s own pages, not those of its other branches or subagents', () => {
    for (const id of [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.nestedAgents]) {
      const conversation = planned(id);
      const { plan } = conversation;
      const first = pageOutline(conversation, plan.pages[0]!);
      const own = plan.pages.filter((page) => page.kind === 'conversation').flatMap((page) => page.talks);
      expect(first.overview?.summary.facts.prompts, id).toBe(own.length);
      expect(first.overview?.summary.facts.prompts, id).toBe(first.outline?.length ?? own.length);
      // The other branches' or the subagents' talks are there to be left out.
      expect(plan.summary.talks, id).toBeGreaterThan(own.length);
      conversation.conversation.rows.close();
    }
  });

  it('models the index and search pages from the conversations’ summaries', async () => {
    const site = new SiteReader({ bundle });
    const { conversations } = site.plan();
    const index = indexModel(conversations);
    expect(index.conversations).toBe(sessions.length);
    expect(index.groups.flatMap((group) => group.rows)).toHaveLength(sessions.length);
    const { scripts } = searchModel(conversations);
    expect([...scripts].sort()).toEqual(conversations.map(({ id }) => `search/${id}.js`).sort());
    // Newest first, those with no start last, so that a search stopped at its most results has found the newest.
    const summary = (id: string, from?: string) => ({ ...conversations[0]!, id, facts: { ...conversations[0]!.facts, from } });
    expect(searchModel([summary('b', '2026-01-02T00:00:00Z'), summary('c'), summary('a', '2026-01-03T00:00:00Z'), summary('d', '2026-01-01T00:00:00Z')]).scripts).toEqual(['search/a.js', 'search/b.js', 'search/d.js', 'search/c.js']);
    site.close();
  });
});
