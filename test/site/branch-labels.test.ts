// The labels of the branches at one point of a conversation: the same
// prompt typed twice still gives two labels that read differently, each
// saying what differs (an interruption and after how long, the start of the
// answer, when it was typed), the same on every page that lists them.

import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stableUuid, textBlock, Transcript } from '../../scripts/claude-code-records.ts';
import { storedSessions } from '../../src/landing/session-folder.ts';
import { writeExport } from '../../src/export/export-folder.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { branchLabels, elapsed, type BranchFacts } from '../../src/site/models/branch-labels.ts';
import { loadConversation } from '../../src/site/models/bundle.ts';
import { planConversation, type ConversationPlan } from '../../src/site/models/plan.ts';
import { linkedStructure, pageOutline } from '../../src/site/models/site.ts';
import { collectOnce, temporaryFolder } from '../helpers.ts';

const base = { prompt: 'Great, please commit', prompts: 1, latest: false } as const;

/** The labels in the order the branches were given. */
function labelsOf(branches: readonly BranchFacts[]): string[] {
  const labels = branchLabels(branches);
  return branches.map((facts) => labels.get(facts.name)!);
}

describe('the labels of branches at one point', () => {
  it('tells two branches of the same prompt apart by when it was typed, when nothing else differs', () => {
    expect(labelsOf([
      { ...base, name: 'b', started: '2026-03-01T10:00:05.000Z', answer: 'Committed.', latest: true },
      { ...base, name: 'a', started: '2026-03-01T10:00:01.000Z', answer: 'Committed.' },
    ])).toEqual(['“Great, please commit” · 1 prompt · typed at 10:00:05 · the latest branch', '“Great, please commit” · 1 prompt · typed at 10:00:01']);
    // Typed on two days: the date is said too.
    expect(labelsOf([
      { ...base, name: 'a', started: '2026-03-01T10:00:01.000Z' },
      { ...base, name: 'b', started: '2026-03-02T10:00:01.000Z' },
    ])).toEqual(['“Great, please commit” · 1 prompt · typed 2026-03-01 at 10:00:01', '“Great, please commit” · 1 prompt · typed 2026-03-02 at 10:00:01']);
  });

  it('says which one was interrupted, and after how long', () => {
    expect(labelsOf([
      { ...base, name: 'a', started: '2026-03-01T10:00:01.000Z', interrupted: { after: 2400 } },
      { ...base, name: 'b', started: '2026-03-01T10:00:09.000Z', answer: 'Committed as 1a2b3c.', latest: true },
    ])).toEqual(['“Great, please commit” · 1 prompt · interrupted after 2 s', '“Great, please commit” · 1 prompt · the latest branch']);
    expect(labelsOf([
      { ...base, name: 'a', interrupted: {} },
      { ...base, name: 'b', interrupted: { after: 95_000 } },
    ])).toEqual(['“Great, please commit” · 1 prompt · interrupted', '“Great, please commit” · 1 prompt · interrupted after 2 min']);
  });

  it('says how each answer starts when the answers differ', () => {
    expect(labelsOf([
      { ...base, name: 'a', started: '2026-03-01T10:00:01.000Z', answer: 'Committed as 1a2b3c.' },
      { ...base, name: 'b', started: '2026-03-01T10:00:09.000Z', answer: 'There is nothing to commit.' },
      { ...base, name: 'c', started: '2026-03-01T10:00:30.000Z' },
    ])).toEqual(['“Great, please commit” · 1 prompt · answer “Committed as 1a2b3c.”', '“Great, please commit” · 1 prompt · answer “There is nothing to commit.”', '“Great, please commit” · 1 prompt · no answer']);
  });

  it('adds nothing to labels that differ already, by their prompt or their number of prompts', () => {
    expect(labelsOf([
      { ...base, name: 'a', prompts: 1, started: '2026-03-01T10:00:01.000Z' },
      { ...base, name: 'b', prompts: 14, started: '2026-03-01T10:00:09.000Z', latest: true },
      { ...base, name: 'c', prompt: 'Great, please push', started: '2026-03-01T10:00:01.000Z' },
    ])).toEqual(['“Great, please commit” · 1 prompt', '“Great, please commit” · 14 prompts · the latest branch', '“Great, please push” · 1 prompt']);
  });

  it('numbers branches alike in every detail, in one order whatever the order given', () => {
    const alike = [
      { ...base, name: 'from-b', started: '2026-03-01T10:00:01.000Z' },
      { ...base, name: 'from-a', started: '2026-03-01T10:00:01.000Z' },
    ];
    const labels = branchLabels(alike);
    expect([...labels.values()].sort()).toEqual(['“Great, please commit” · 1 prompt · 1 of 2', '“Great, please commit” · 1 prompt · 2 of 2']);
    expect(branchLabels([...alike].reverse())).toEqual(labels);
    expect(labels.get('from-a')).toBe('“Great, please commit” · 1 prompt · 1 of 2');
  });

  it('says a short time in words', () => {
    expect([400, 1_400, 59_000, 61_000, 3_720_000].map(elapsed)).toEqual(['under a second', '1 s', '59 s', '1 min', '1 h 2 min']);
  });
});

describe('the labels of branches read from a bundle', () => {
  let bundle: string;
  const ids = { interrupted: stableUuid('branch-labels', 1), answers: stableUuid('branch-labels', 2), times: stableUuid('branch-labels', 3) };

  beforeAll(async () => {
    const root = temporaryFolder({ forFile: true });
    const write = (session: string, fill: (t: Transcript) => void): void => {
      const t = new Transcript({ session });
      fill(t);
      const file = path.join(root, '-home-user-project', `${session}.jsonl`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, t.text());
    };
    // A prompt interrupted a second after it was typed, then typed again after the first answer.
    write(ids.interrupted, (t) => {
      t.prompt('What is left to migrate?');
      const [answer] = t.call([textBlock('The points program is left.')]);
      t.prompt('Then migrate it.');
      t.prompt([textBlock('[Request interrupted by user]')], { origin: false });
      t.prompt('Then migrate it.', { parent: answer! });
      t.call([textBlock('Migrating the points program now.')]);
    });
    // The same first prompt twice, from the start, answered differently.
    write(ids.answers, (t) => {
      t.prompt('Is the cache stale?');
      t.call([textBlock('Yes: it was written before the last deploy.')]);
      t.prompt('Is the cache stale?', { parent: null });
      t.call([textBlock('No: it was rebuilt an hour ago.')]);
    });
    // The same first prompt twice, answered the same: only the time tells them apart.
    write(ids.times, (t) => {
      t.prompt('Great, please commit');
      t.call([textBlock('Committed.')]);
      t.prompt('Great, please commit', { parent: null });
      t.call([textBlock('Committed.')]);
    });
    const data = temporaryFolder({ forFile: true });
    collectOnce(root, data);
    for (const session of storedSessions(data)) parseSession(data, session);
    const out = path.join(temporaryFolder({ forFile: true }), 'export');
    await writeExport(data, out, storedSessions(data), { site: false });
    bundle = path.join(out, 'bundle');
  });

  /** The labels of the branch list on every page of a conversation, its conversation page first. */
  function listed(id: string): string[][] {
    const conversation = loadConversation(bundle, id);
    let plan: ConversationPlan | undefined;
    const structure = linkedStructure(conversation, () => plan);
    plan = planConversation(conversation, structure);
    return plan.pages.map((page) => {
      const outline = pageOutline({ conversation, structure, plan: plan! }, page);
      return [...outline.forksAtStart, ...[...outline.forksAfter.values()].flat()].map((link) => `${link.label}${link.current ? ' (you are here)' : ''}`);
    });
  }

  it('says which branch was interrupted, and after how long', () => {
    expect(listed(ids.interrupted)).toEqual([
      ['“Then migrate it.” · 1 prompt · the latest branch (you are here)', '“Then migrate it.” · 1 prompt · interrupted after 1 s'],
      ['“Then migrate it.” · 1 prompt · interrupted after 1 s (you are here)', '“Then migrate it.” · 1 prompt · the latest branch'],
    ]);
  });

  it('says how each answer starts, on the conversation’s page and the branch’s alike', () => {
    expect(listed(ids.answers)).toEqual([
      ['“Is the cache stale?” · 1 prompt · answer “No: it was rebuilt an hour ago.” · the latest branch (you are here)', '“Is the cache stale?” · 1 prompt · answer “Yes: it was written before the last deploy.”'],
      ['“Is the cache stale?” · 1 prompt · answer “Yes: it was written before the last deploy.” (you are here)', '“Is the cache stale?” · 1 prompt · answer “No: it was rebuilt an hour ago.” · the latest branch'],
    ]);
  });

  it('says when each was typed when nothing else differs', () => {
    expect(listed(ids.times)).toEqual([
      ['“Great, please commit” · 1 prompt · typed at 10:00:03 · the latest branch (you are here)', '“Great, please commit” · 1 prompt · typed at 10:00:01'],
      ['“Great, please commit” · 1 prompt · typed at 10:00:01 (you are here)', '“Great, please commit” · 1 prompt · typed at 10:00:03 · the latest branch'],
    ]);
  });
});
