// A page's talks as components/Talks.tsx renders them, from a model made here.

import { describe, expect, it } from 'vitest';
import { talksHtml } from '../../src/site/components/Talks.tsx';
import type { PartView, StepView, TalkView } from '../../src/site/data/views.ts';

function prompt(text: string): TalkView {
  const part: PartView = { kind: 'text', state: 'available', bytes: text.length, shownBytes: text.length, heldBytes: text.length, segments: [{ text }], long: false };
  const step = { id: 'n1', anchor: 'n1', kind: 'message.external', evidence: [], parts: [part], flags: [], qualities: [], links: [], unresolved: [], children: [] } as StepView;
  return { id: 't1', anchor: 't1', number: 1, epoch: 'e1', startedBy: 'human', runs: [], loose: [step], links: [], weight: 0, keys: [] };
}

const folded = (text: string): boolean => talksHtml({ talks: [prompt(text)], epochBefore: new Map(), forksAfter: new Map(), root: '../' }).includes('class="prompt-long"');

describe('a prompt in the transcript', () => {
  it('is folded when a person pasted something long into it, by its lines or, pasted as one line, by its characters', () => {
    expect(folded('fix the test, please')).toBe(false);
    expect(folded(Array.from({ length: 40 }, (_, line) => `line ${line} of a short paste`).join('\n'))).toBe(false);
    expect(folded(Array.from({ length: 61 }, (_, line) => `line ${line}`).join('\n'))).toBe(true);
    expect(folded(`<div class="o_data_cell">${'x'.repeat(7000)}</div>`)).toBe(true);
  });
});
