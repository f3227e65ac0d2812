// The evidence folds made as HTML text (components/evidence-html.ts): the
// markup React made for them, with every string of the model escaped the
// way React escapes it.

import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { escapeHtml, evidenceLinksHtml, linksHtml, stepFoldInnerHtml, talkFoldInnerHtml } from '../../src/site/components/evidence-html.ts';
import type { StepView, TalkView } from '../../src/site/data/views.ts';

const HOSTILE = `"><script>alert('x')</script><img src=x onerror=alert(1)> & &amp; ' "`;

function step(overrides: Partial<StepView>): StepView {
  return {
    id: 'n1',
    kind: 'tool',
    anchor: 'n1',
    evidence: [],
    flags: [],
    qualities: [],
    links: [],
    unresolved: [],
    parts: [],
    children: [],
    ...overrides,
  } as StepView;
}

describe('evidence folds as HTML text', () => {
  it('escapes text and attribute values exactly as React does', () => {
    for (const value of [HOSTILE, 'plain words', '', 'naïve 語 λ', 42]) {
      expect(`<p title="${escapeHtml(value)}">${escapeHtml(value)}</p>`).toBe(renderToStaticMarkup(createElement('p', { title: String(value) }, String(value))));
    }
  });

  it('shows every string of a hostile step as text, never as markup', () => {
    const html = stepFoldInnerHtml(
      step({
        kind: HOSTILE,
        toolName: HOSTILE,
        flags: [HOSTILE],
        qualities: [{ name: HOSTILE, value: HOSTILE }],
        evidence: [{ seq: 1, row: 2, file: `bundle/${HOSTILE}.jsonl`, page: `e/${HOSTILE}.html#row-2` }],
        links: [{ label: HOSTILE, href: `c/${HOSTILE}.html`, quality: HOSTILE, via: HOSTILE }],
        unresolved: [{ kind: HOSTILE, state: HOSTILE, about: HOSTILE, meaning: HOSTILE }],
      }),
      '../',
      [step({ kind: HOSTILE })],
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    // Every tag in the fold is one of its own, with attributes of its own, each value quoted whole.
    const tags = [...html.matchAll(/<\/?([a-z]+)([^>]*)>/g)];
    expect(tags.length).toBeGreaterThan(10);
    for (const [, tag, attributes] of tags) {
      expect(['summary', 'div', 'p', 'a', 'ul', 'li', 'span']).toContain(tag);
      expect(attributes!.replace(/ (class|href|title|aria-current)="[^"<>]*"/g, '')).toBe('');
    }
    expect(html).toContain('&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;');
  });

  it('writes the markup the components wrote: the landed rows linked to their evidence pages, the reader\'s own path marked', () => {
    expect(evidenceLinksHtml([{ seq: 1, row: 2, file: 'bundle/s/streams/main/t.jsonl', page: 'e/s--1.html#row-2' }, { seq: 3, row: 0, file: undefined }], '../')).toBe(
      '<p class="evidence">Landed records:<a href="../e/s--1.html#row-2" title="landed record: row 2 of bundle/s/streams/main/t.jsonl">{seq 1, row 2}</a><span> {seq 3, row 0} (landed file not in the bundle)</span></p>',
    );
    expect(linksHtml([{ label: 'this path', href: undefined, current: true }, { label: 'the other', href: 'b/x.html#t1', quality: 'exact_unique', via: 'result' }, { label: 'lost', href: undefined }], '../')).toBe(
      '<ul class="links"><li><strong aria-current="page">this path <span class="here">(you are here)</span></strong></li><li><a href="../b/x.html#t1">the other</a><span class="quality"> correlation: exact_unique</span><span class="via"> via result</span></li><li><span>lost (on no page)</span></li></ul>',
    );
    expect(evidenceLinksHtml([], '../')).toBe('');
    expect(linksHtml([], '../')).toBe('');
    const fold = stepFoldInnerHtml(step({ kind: 'llm.call', usage: { input: 10, output: 20 } as StepView['usage'], fragments: 3 }), '../', []);
    expect(fold).toBe('<summary title="evidence and notes: llm.call">evidence</summary><div class="ev-body"><p><a href="../glossary.html#g-llm-call">llm.call</a> · 3 fragments</p><p class="usage">tokens: input 10, output 20, cache read –, cache write –</p></div>');
    expect(stepFoldInnerHtml(step({ kind: 'llm.call', fragments: 1 }), '../', [])).toContain('llm.call</a> · 1 fragment</p>');
    const talk = { number: 2, startedBy: HOSTILE, start: { seq: 1, row: 7, file: 'bundle/s/t.jsonl', page: 'e/s--1.html#row-7' }, links: [{ label: 'turn', href: 'c/s.html#n1' }] } as unknown as TalkView;
    expect(talkFoldInnerHtml(talk, '../')).toBe(
      `<summary title="evidence and notes: talk 2">evidence</summary><div class="ev-body"><p>Talk 2, started by ${escapeHtml(HOSTILE)}.</p><p class="evidence">Landed records:<a href="../e/s--1.html#row-7" title="landed record: row 7 of bundle/s/t.jsonl">{seq 1, row 7}</a></p><ul class="links"><li><a href="../c/s.html#n1">turn</a></li></ul></div>`,
    );
  });
});
