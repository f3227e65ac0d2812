// The kept renderer's order of work: each conversation is read once, for its
// plan and its pages together, and the pages come in the whole plan's order.

import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import type { PageModel } from '../../src/site/models/site.ts';
import { SiteReader } from '../../src/site/generator/site-reader.ts';
import { createHighlighter } from '../../src/site/generator/highlight.ts';
import type { LinkView, StepView } from '../../src/site/models/views.ts';
import { exportedSessions, temporaryFolder } from '../helpers.ts';

const loads = vi.hoisted(() => [] as string[]);
vi.mock('../../src/site/models/bundle.ts', async (original) => {
  const actual = await original<typeof import('../../src/site/models/bundle.ts')>();
  return {
    ...actual,
    loadConversation: (bundle: string, id: string) => {
      loads.push(id);
      return actual.loadConversation(bundle, id);
    },
  };
});

/** Every link of a page: its stream's, its talks', and their steps', however deep. */
function linksOf(model: PageModel): LinkView[] {
  const ofSteps = (steps: readonly StepView[]): LinkView[] => steps.flatMap((step) => [...step.links, ...ofSteps(step.children)]);
  return [...model.streamLinks, ...model.talks.flatMap((talk) => [...talk.links, ...ofSteps(talk.loose), ...talk.runs.flatMap((run) => ofSteps(run.steps))])];
}

let bundle: string;
const sessions = [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.nestedAgents, FIXTURE_SESSIONS.compaction];
beforeAll(async () => {
  bundle = path.join(await exportedSessions(sessions, { site: false }), 'bundle');
});

describe('pages as planned', () => {
  it('reads each conversation once for its plan and its pages, in the order of the whole plan', async () => {
    const cache = temporaryFolder();
    const site = new SiteReader({ bundle, cache }, () => createHighlighter(cache));
    const files: string[] = [];
    const seen: string[] = [];
    let linksChecked = 0;
    for await (const file of site.pagesAsPlanned()) {
      files.push(file);
      const model = await site.page(file);
      seen.push(model.plan.conversation);
      // A page's links are resolved though its structure was made before its plan.
      for (const link of linksOf(model)) {
        if (!link.label.includes('stream')) continue;
        expect(link.href, link.label).toMatch(/^[cs]\/.+\.html/);
        linksChecked += 1;
      }
    }
    expect(linksChecked).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(sessions));
    expect([...loads].sort()).toEqual([...sessions].sort());
    expect((await site.plan()).pages.map((page) => page.file)).toEqual(files);
    expect(loads).toHaveLength(sessions.length);
  });
});
