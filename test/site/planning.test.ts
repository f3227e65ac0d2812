// The kept renderer's order of work: each conversation is read once, for its
// plan and its pages together, and the pages come in the whole plan's order.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import type { PageModel } from '../../src/site/models/site.ts';
import { SiteReader } from '../../src/site/generator/site-reader.ts';
import type { SiteSelection } from '../../src/site/generator/site-input.ts';
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
    const site = new SiteReader({ bundle });
    const files: string[] = [];
    const seen: string[] = [];
    let linksChecked = 0;
    for (const file of site.pagesAsPlanned()) {
      files.push(file);
      const model = site.page(file);
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
    expect(site.plan().pages.map((page) => page.file)).toEqual(files);
    expect(loads).toHaveLength(sessions.length);
  });
});

describe('conversations shared out as they go', () => {
  /** The selection of every conversation of the bundle, each plan saved in `plans`, claimed in `claims` in the order given. */
  function sharedSelection(plans: string, claims: string, order: readonly string[]): SiteSelection {
    return { conversations: sessions.map((id) => ({ id, render: true, plan: path.join(plans, `${id}.json`) })), claims: { folder: claims, order } };
  }

  async function conversationsOf(site: SiteReader, files: readonly string[]): Promise<string[]> {
    const seen = new Set<string>();
    for (const file of files) seen.add(site.page(file).plan.conversation);
    return [...seen];
  }

  it('are each rendered by one build, the next claimed by whichever asks first, and the lead lists them all', async () => {
    loads.length = 0;
    const folder = temporaryFolder();
    const claims = path.join(folder, 'claims');
    fs.mkdirSync(claims);
    const order = [sessions[2]!, sessions[0]!, sessions[1]!];
    const lead = new SiteReader({ bundle, selection: sharedSelection(path.join(folder, 'plans'), claims, order) });
    const helper = new SiteReader({ bundle, selection: { ...sharedSelection(path.join(folder, 'plans'), claims, order), siteWidePages: false } });
    const leadPages = lead.pagesAsPlanned();
    const helperPages = helper.pagesAsPlanned();
    const leadFiles = [(await leadPages.next()).value as string];
    const helperFiles = [(await helperPages.next()).value as string];
    // The lead, done with the first, claims the one conversation left; the helper, done with the second, finds none.
    for (let next = await leadPages.next(); !next.done; next = await leadPages.next()) leadFiles.push(next.value);
    for (let next = await helperPages.next(); !next.done; next = await helperPages.next()) helperFiles.push(next.value);
    // Each conversation read by one build alone (reading their pages' models again below reads them again).
    expect([...loads].sort()).toEqual([...sessions].sort());
    expect(await conversationsOf(lead, leadFiles)).toEqual([order[0], order[2]]);
    expect(await conversationsOf(helper, helperFiles)).toEqual([order[1]]);
    expect(fs.readFileSync(path.join(claims, order[1]!), 'utf8')).toBe(String(process.pid));
    // The site's own list: every conversation, in the bundle's order whatever the order claimed, the helper's from the plan it saved.
    expect(lead.plan().conversations.map((conversation) => conversation.id)).toEqual(sessions);
    lead.close();
    helper.close();
  });

  it('say which build to blame when the one that claimed a conversation ended without its plan', async () => {
    const folder = temporaryFolder();
    const claims = path.join(folder, 'claims');
    fs.mkdirSync(claims);
    const ended = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim();
    fs.writeFileSync(path.join(claims, sessions[1]!), ended);
    const lead = new SiteReader({ bundle, selection: sharedSelection(path.join(folder, 'plans'), claims, sessions) });
    expect(() => lead.plan()).toThrow(`the build that renders conversation ${sessions[1]} (process ${ended}) ended without saving its plan`);
    lead.close();
  });
});
