// The site's data layer on fixture bundles: branches found and given pages,
// child streams linked to their parent call both ways, pages split within
// their budget, and parts shown with their content state and size.

import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_AGENTS, FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { loadConversation } from '../../src/site/models/bundle.ts';
import { cutAtBytes, partView, prose, SHOWN_LIMIT } from '../../src/site/models/parts.ts';
import { planConversation } from '../../src/site/models/plan.ts';
import { cutTalks, type TalkSize } from '../../src/site/models/page-cut.ts';
import { slug } from '../../src/site/models/page-files.ts';
import { singleSpaced, writeSearchScript } from '../../src/site/models/search-text.ts';
import { SiteReader } from '../../src/site/generator/site-reader.ts';
import { subagentNames } from '../../src/site/models/site.ts';
import { conversationStructure, withParts, type ConversationStructure } from '../../src/site/models/streams.ts';
import type { StepView } from '../../src/site/models/views.ts';
import { exportedSessions, temporaryFolder } from '../helpers.ts';

let bundle: string;
/** The site of the bundle, every conversation rendered, as a renderer reads it. */
let site: SiteReader;
beforeAll(async () => {
  bundle = path.join(await exportedSessions([FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.nestedAgents, FIXTURE_SESSIONS.compaction, FIXTURE_SESSIONS.rewindAtFirstPrompt], { site: false }), 'bundle');
  site = new SiteReader({ bundle });
});

describe('page models from a bundle', () => {
  it('gives a rewind’s other path a branch page, and keeps it off the conversation page', async () => {
    const plan = planConversation(loadConversation(bundle, FIXTURE_SESSIONS.rewind));
    expect(plan.pages.map((page) => page.kind)).toEqual(['conversation', 'branch']);
    const [conversation, branch] = plan.pages;
    expect(conversation!.talks).toHaveLength(2);
    expect(branch!.talks).toHaveLength(1);
    expect(plan.pageOfBranch.get('active')).toBe(`c/${FIXTURE_SESSIONS.rewind}.html`);
    expect(branch!.file).toMatch(new RegExp(`^b/${FIXTURE_SESSIONS.rewind}--from-[0-9a-f]{8}-[0-9a-f]{8}\\.html$`));
    const model = site.page(branch!.file);
    expect(model.branch).toMatchObject({ origin: 'natural', boundaryKind: 'a person’s prompt after a rewind or an edit' });
    expect(model.branch!.forkPoint.href).toMatch(new RegExp(`^c/${FIXTURE_SESSIONS.rewind}\\.html#n[0-9a-f]{12}$`));
    const active = site.page(conversation!.file);
    expect([...active.forksAfter.values()].flat().map((link) => link.href)).toEqual([conversation!.file, branch!.file]);
  });

  it('puts a rewind to the first prompt at the top of the page, not after a talk', async () => {
    const plan = planConversation(loadConversation(bundle, FIXTURE_SESSIONS.rewindAtFirstPrompt));
    const model = site.page(plan.pages[0]!.file);
    expect(model.forksAtStart.map((link) => link.href)).toEqual([plan.pages[0]!.file, plan.pages[1]!.file]);
    expect(model.forksAfter.size).toBe(0);
  });

  it('links a child stream to the call that started it, both ways', async () => {
    site.plan();
    const plan = planConversation(loadConversation(bundle, FIXTURE_SESSIONS.nestedAgents));
    const outer = `s/${FIXTURE_SESSIONS.nestedAgents}--${FIXTURE_AGENTS.nestedOuter}.html`;
    expect(plan.pages.map((page) => page.file)).toEqual([`c/${FIXTURE_SESSIONS.nestedAgents}.html`, outer, `s/${FIXTURE_SESSIONS.nestedAgents}--${FIXTURE_AGENTS.nestedInner}.html`]);
    const main = site.page(`c/${FIXTURE_SESSIONS.nestedAgents}.html`);
    const call = main.talks[0]!.runs[0]!.steps.flatMap((step) => step.children).find((step) => step.kind === 'agent.call')!;
    expect(call.links).toEqual([{ label: `starts → stream ${FIXTURE_AGENTS.nestedOuter}`, href: outer, quality: 'exact_unique', via: 'result' }]);
    const child = site.page(outer);
    expect(child.streamLinks).toEqual([{ label: 'started by ← agent.call Agent', href: `c/${FIXTURE_SESSIONS.nestedAgents}.html#${call.anchor}`, quality: 'exact_unique', via: 'result' }]);
    // The header names the call in plain words; the relation and its correlation are in the audit.
    expect(child.startedBy).toEqual({ label: 'the Agent call', href: `c/${FIXTURE_SESSIONS.nestedAgents}.html#${call.anchor}`, quality: 'exact_unique', via: 'result' });
  });

  it('marks epochs, and gives every step its evidence in the bundle', () => {
    const conversation = loadConversation(bundle, FIXTURE_SESSIONS.compaction);
    const { streams } = conversationStructure(conversation, () => undefined);
    expect(streams[0]!.epochs).toHaveLength(2);
    const steps = streams[0]!.talks.flatMap((talk) => talk.runs.flatMap((run) => run.steps));
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) for (const ref of step.evidence) expect(ref.file).toMatch(new RegExp(`^bundle/${FIXTURE_SESSIONS.compaction}/streams/main/transcript-.*\\.jsonl$`));
    // The structure holds no part: a page reads its steps' parts from their rows.
    expect(steps.flatMap(flatten).flatMap((step) => step.parts)).toEqual([]);
    const reasoning = steps.map((step) => withParts(step, conversation.rows)).flatMap(flatten).flatMap((step) => step.parts).find((part) => part.kind === 'reasoning')!;
    expect(reasoning.state).toBe('unavailable');
  });

  it('shows a conversation whose rows are read again from the bundle as one whose rows are held', () => {
    // Every talk and epoch of a structure, with its steps' parts read.
    const shown = (structure: ConversationStructure, rows: ReturnType<typeof loadConversation>['rows']) =>
      structure.streams.map((stream) => ({
        epochs: stream.epochs.map((epoch) => epoch.steps.map((step) => withParts(step, rows))),
        talks: stream.talks.map((talk) => ({ ...talk, loose: talk.loose.map((step) => withParts(step, rows)), runs: talk.runs.map((run) => ({ ...run, steps: run.steps.map((step) => withParts(step, rows)) })) })),
      }));
    for (const id of [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.nestedAgents, FIXTURE_SESSIONS.compaction, FIXTURE_SESSIONS.rewindAtFirstPrompt]) {
      const held = loadConversation(bundle, id);
      const read = loadConversation(bundle, id, { heldMostBytes: 0 });
      const fromHeld = conversationStructure(held, () => undefined);
      const fromRead = conversationStructure(read, () => undefined);
      expect(read.rows.keys(), id).toEqual(held.rows.keys());
      expect(read.title, id).toBe(held.title);
      const plan = planConversation(held, fromHeld);
      expect(planConversation(read, fromRead), id).toEqual(plan);
      const scripts = temporaryFolder();
      writeSearchScript(path.join(scripts, 'held.js'), held, fromHeld, plan.pageOfTalk, plan.summary.facts, subagentNames(fromHeld, held));
      writeSearchScript(path.join(scripts, 'read.js'), read, fromRead, plan.pageOfTalk, plan.summary.facts, subagentNames(fromRead, read));
      expect(fs.readFileSync(path.join(scripts, 'read.js'), 'utf8'), id).toBe(fs.readFileSync(path.join(scripts, 'held.js'), 'utf8'));
      const parts = shown(fromRead, read.rows);
      expect(parts, id).toEqual(shown(fromHeld, held.rows));
      expect(parts.flatMap((stream) => stream.talks).flatMap((talk) => [...talk.loose, ...talk.runs.flatMap((run) => run.steps)]).flatMap(flatten).flatMap((step) => step.parts).length, id).toBeGreaterThan(0);
      read.rows.close();
    }
  });
});

function flatten(step: StepView): StepView[] {
  return [step, ...step.children.flatMap(flatten)];
}

describe('cutting pages', () => {
  const size = (bytes: number, epochBytes = 0, opensEpoch = false): TalkSize => ({ bytes, epochBytes, opensEpoch });
  it('closes a page when the next talk would pass its room, and gives a talk larger than that a page alone', () => {
    expect(cutTalks([300, 300, 300, 900, 1500, 100, 100].map((bytes) => size(bytes)), () => 1000)).toEqual([3, 1, 1, 2]);
    expect(cutTalks([], () => 1000)).toEqual([0]);
    // Room that differs by page: the first page's frame holds more.
    expect(cutTalks([400, 400, 400, 400].map((bytes) => size(bytes)), (page) => (page === 0 ? 500 : 1000))).toEqual([1, 2, 1]);
  });

  it('counts an epoch’s opening before the first talk of its epoch, and before the first talk of every page', () => {
    // The third talk continues the epoch of the second: on a page of its own it is shown under the epoch's opening too.
    const talks = [size(400, 100, true), size(400, 100, true), size(300, 100, false)];
    expect(cutTalks(talks, () => 1000)).toEqual([2, 1]);
    expect(cutTalks(talks, () => 1100)).toEqual([2, 1]);
    expect(cutTalks(talks, () => 1300)).toEqual([3]);
  });

  it('names files safely, and two different names never share one', () => {
    expect(slug('a1b2-C3.x')).toBe('a1b2-C3.x');
    expect(slug('a/b')).not.toBe(slug('a_b'));
    expect(slug('../x')).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(slug('../x').startsWith('.')).toBe(false);
  });
});

describe('search text', () => {
  it('makes each run of white space one space, as replacing every run would', () => {
    const characters = ['a', 'b', ' ', '  ', '\n', '\t', '\r\n', '\u00a0', '\u2028', '\ufeff', 'é'];
    let seed = 1;
    const next = (): number => (seed = (seed * 48271) % 2147483647);
    for (let round = 0; round < 2000; round++) {
      const text = Array.from({ length: next() % 12 }, () => characters[next() % characters.length]).join('');
      expect(singleSpaced(text)).toBe(text.replace(/\s+/g, ' ').trim());
    }
  });
});

describe('parts', () => {
  it('keeps an MCP call’s arguments for the tree its card shows, and gives one too large for a tree as JSON', () => {
    const call = (input: unknown) => partView({ k: 'call', state: 'available', bytes: Buffer.byteLength(JSON.stringify(input)), id: 'toolu_mcp', name: 'mcp__db__connect', input });
    const small = call({ host: 'db.example.invalid', options: { port: 5432 } });
    expect(small.tool).toMatchObject({ kind: 'mcp', server: 'db', tool: 'connect', rest: { host: 'db.example.invalid', options: { port: 5432 } } });
    // Not highlighted as code: the tree shows it.
    expect(small.segments.every((segment) => segment.language === undefined)).toBe(true);
    const large = call({ rows: 'x'.repeat(SHOWN_LIMIT) });
    expect(large.tool?.rest).toBeUndefined();
    expect(large.segments[0]?.language).toBe('json');
  });

  it('shows the content state and size, and cuts long content at a character boundary', () => {
    expect(partView({ k: 'reasoning', state: 'unavailable', bytes: 812, text: '' })).toMatchObject({ state: 'unavailable', bytes: 812, segments: [] });
    const long = 'é'.repeat(SHOWN_LIMIT);
    const view = partView({ k: 'result', state: 'available', bytes: Buffer.byteLength(long), of: 'toolu_1', text: long }, 'toolu_1');
    expect(view.shownBytes).toBeLessThanOrEqual(SHOWN_LIMIT);
    expect(view.heldBytes).toBe(Buffer.byteLength(long));
    expect(view.long).toBe(true);
    expect(cutAtBytes('aé', 2)).toBe('a');
  });

  it('cuts at the same character whether the text ends at the limit or runs far past it', () => {
    // What cutting the whole text's bytes gives, to hold the cut of its first code units to.
    const whole = (text: string, limit: number): string => {
      const bytes = Buffer.from(text);
      if (bytes.length <= limit) return text;
      let end = limit;
      while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
      return bytes.subarray(0, end).toString('utf8');
    };
    const pieces = ['a', 'é', '漢', '😀', '\ud800', '\udc00'];
    for (let limit = 0; limit <= 9; limit++) {
      for (const first of pieces) for (const second of pieces) for (const third of pieces) {
        const text = `${'x'.repeat(limit % 4)}${first}${second}${third}${'y'.repeat(limit)}`;
        expect(cutAtBytes(text, limit)).toBe(whole(text, limit));
      }
    }
  });

  it('folds content of more than 24 lines or 1,500 bytes, and nothing shorter', () => {
    const shown = (text: string) => partView({ k: 'text', state: 'available', bytes: Buffer.byteLength(text), text });
    expect(shown('line\n'.repeat(23) + 'last').long).toBe(false);
    expect(shown('line\n'.repeat(24) + 'last').long).toBe(true);
    expect(shown('\n'.repeat(24)).long).toBe(true);
    expect(shown('\n'.repeat(23)).long).toBe(false);
    expect(shown('x'.repeat(1500)).long).toBe(false);
    expect(shown('x'.repeat(1501)).long).toBe(true);
    expect(shown('x'.repeat(1501)).shownBytes).toBe(1501);
  });

  it('marks fenced code for highlighting and leaves the prose around it', () => {
    expect(prose('See:\n```ts\nconst a = 1;\n```\ndone')).toEqual([{ text: 'See:\n' }, { text: 'const a = 1;', language: 'ts' }, { text: '\ndone' }]);
  });
});
