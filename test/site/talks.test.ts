// A page's talks as components/talks.ts renders them, from a model made here.

import { describe, expect, it } from 'vitest';
import { talksHtml } from '../../src/site/components/talks.ts';
import type { PartView, StepView, TalkView } from '../../src/site/data/views.ts';
import { bytes } from '../../src/site/data/shown-text.ts';

function talkOf(kind: string, part: PartView): TalkView {
  const step = { id: 'n1', anchor: 'n1', kind, evidence: [], parts: [part], flags: [], qualities: [], links: [], unresolved: [], children: [] } as StepView;
  return { id: 't1', anchor: 't1', number: 1, epoch: 'e1', startedBy: 'human', runs: [], loose: [step], links: [], weight: 0, keys: [] };
}

function html(talk: TalkView): string {
  return talksHtml({ talks: [talk], epochBefore: new Map(), forksAfter: new Map(), root: '../' });
}

function prompt(text: string): TalkView {
  return talkOf('message.external', { kind: 'text', state: 'available', bytes: text.length, shownBytes: text.length, heldBytes: text.length, segments: [{ text }], long: false });
}

const folded = (text: string): boolean => html(prompt(text)).includes('class="prompt-long"');

describe('a prompt in the transcript', () => {
  it('is folded when a person pasted something long into it, by its lines or, pasted as one line, by its characters', () => {
    expect(folded('fix the test, please')).toBe(false);
    expect(folded(Array.from({ length: 40 }, (_, line) => `line ${line} of a short paste`).join('\n'))).toBe(false);
    expect(folded(Array.from({ length: 61 }, (_, line) => `line ${line}`).join('\n'))).toBe(true);
    expect(folded(`<div class="o_data_cell">${'x'.repeat(7000)}</div>`)).toBe(true);
    expect(html(prompt('y'.repeat(7000)))).toContain('(1 line, ');
  });

  it('says of a thought whose text the source did not keep that it is not held, not that it is empty', () => {
    const thinking = (state: PartView['state'], text: string): string => html(talkOf('thinking', { kind: 'reasoning', state, bytes: text.length, shownBytes: text.length, heldBytes: text.length, segments: text ? [{ text }] : [], long: false }));
    expect(thinking('unavailable', '')).toContain('<span class="size">not held by the source</span>');
    expect(thinking('available', 'weigh the two options')).toContain('<span class="size">21 B</span>');
  });
});

describe('a part the page does not show', () => {
  it('names an image by its type and size, and fetches nothing', () => {
    const image: PartView = { kind: 'media', state: 'available', bytes: 48_213, shownBytes: 0, heldBytes: 0, segments: [], label: 'image/png', long: false };
    const page = html(talkOf('message.external', image));
    expect(page).toContain(`<div class="part p-media"><span class="state">image/png, ${bytes(48_213)}: not shown</span></div>`);
    expect(page).not.toContain('<img');
  });
});

describe('a tool output', () => {
  it('keeps a blank first line, which a browser would drop after <pre>', () => {
    const output = '\nline after a blank one';
    const result: PartView = { kind: 'result', state: 'available', bytes: output.length, shownBytes: output.length, heldBytes: output.length, segments: [{ text: output }], long: false };
    const page = html(talkOf('tool', result));
    expect(page).toContain(`<pre class="output">\n${output}</pre>`);
  });
});

describe('a long tool output', () => {
  const output = (state: PartView['state'], text: string, extra: Partial<PartView> = {}): string =>
    html(talkOf('tool', { kind: 'result', state, bytes: text.length + 40, shownBytes: text.length, heldBytes: text.length, segments: [{ text }], long: false, ...extra }));
  const lines = Array.from({ length: 30 }, (_, line) => `line ${line}`).join('\n');

  it('says what a redaction or the source did to it, as any part does, and how much is shown', () => {
    expect(output('redacted', `key [redacted:aws-key]\n${lines}`, { removed: 40 })).toContain(`<p class="part-note s-redacted">Secrets taken out; content state: redacted, ${bytes(lines.length + 63)} (${bytes(40)} removed)</p>`);
    expect(output('available', lines, { heldBytes: lines.length * 3 })).toContain(`<p class="part-note s-available">The first ${bytes(lines.length)} of ${bytes(lines.length * 3)} shown; the whole is in the evidence</p>`);
  });

  it('is summed up by its first line with text', () => {
    expect(output('available', `\n\n  first words\n${lines}`)).toContain('<summary><span class="first-line">first words</span> <span class="size">(33 lines)</span></summary>');
  });
});
