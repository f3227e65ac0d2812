// The markup of the components (views/html.ts) and the evidence folds
// made with it (views/evidence-html.ts): every string of the model
// escaped, in text and in attribute values alike.

import { describe, expect, it } from 'vitest';
import { evidenceLinksHtml, linksHtml, stepFoldHtml, talkFoldHtml } from '../../src/site/views/evidence-html.ts';
import { attribute, contentText, escapeHtml, flag, html, preStart, trusted } from '../../src/site/views/html.ts';
import type { StepView, TalkView } from '../../src/site/models/views.ts';

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

describe('markup made by the html template', () => {
  it('escapes every character that could start or end markup, in text and attribute values, and nothing else', () => {
    expect(escapeHtml(HOSTILE)).toBe('&quot;&gt;&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &amp;amp; &#x27; &quot;');
    expect(escapeHtml('naïve 語 λ')).toBe('naïve 語 λ');
    expect(escapeHtml(42)).toBe('42');
    expect(html`<p title="${HOSTILE}">${HOSTILE}</p>`.text).toBe(`<p title="${escapeHtml(HOSTILE)}">${escapeHtml(HOSTILE)}</p>`);
  });

  it('puts markup in as it is, lists in order, and nothing for false, null or undefined, as the components need', () => {
    const item = (text: string) => html`<li>${text}</li>`;
    expect(html`<ul>${['a<', 'b'].map(item)}</ul>${false}${null}${undefined}${0}${''}`.text).toBe('<ul><li>a&lt;</li><li>b</li></ul>0');
    expect(html`<div>${trusted('<span class="h-1">x</span>')}</div>`.text).toBe('<div><span class="h-1">x</span></div>');
    expect(contentText([html`<b>1</b>`, [' & ', 2]])).toBe('<b>1</b> &amp; 2');
  });

  it('writes an attribute only when it has a value, a boolean one as `name=""`, and keeps a leading newline of a <pre>', () => {
    expect(html`<pre${attribute('data-language', undefined)}>`.text).toBe('<pre>');
    expect(html`<pre${attribute('data-language', 'a"b')}>`.text).toBe('<pre data-language="a&quot;b">');
    expect(html`<details${flag('open', true)}></details><details${flag('open', false)}></details>`.text).toBe('<details open=""></details><details></details>');
    // A parser drops the first newline after <pre>: a text that starts with one gets a second.
    expect(html`<pre>${preStart('\nline')}${'\nline'}</pre>`.text).toBe('<pre>\n\nline</pre>');
    expect(html`<pre>${preStart('line')}${'line'}</pre>`.text).toBe('<pre>line</pre>');
  });
});

describe('evidence folds', () => {

  it('shows every string of a hostile step as text, never as markup', () => {
    const fold = stepFoldHtml(
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
    ).text;
    expect(fold).not.toContain('<script');
    expect(fold).not.toContain('<img');
    // Every tag in the fold is one of its own, with attributes of its own, each value quoted whole.
    const tags = [...fold.matchAll(/<\/?([a-z]+)([^>]*)>/g)];
    expect(tags.length).toBeGreaterThan(10);
    for (const [, tag, attributes] of tags) {
      expect(['details', 'summary', 'div', 'p', 'a', 'ul', 'li', 'span']).toContain(tag);
      expect(attributes!.replace(/ (class|href|title|aria-current)="[^"<>]*"/g, '')).toBe('');
    }
    expect(fold).toContain('&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;');
  });

  it('links the landed rows linked to their evidence pages, the reader\'s own path marked', () => {
    expect(evidenceLinksHtml([{ seq: 1, row: 2, file: 'bundle/s/streams/main/t.jsonl', page: 'e/s--1.html#row-2' }, { seq: 3, row: 0, file: undefined }], '../')?.text).toBe(
      '<p class="evidence">Landed records:<a href="../e/s--1.html#row-2">{seq 1, row 2}</a><span> {seq 3, row 0} (landed file not in the bundle)</span></p>',
    );
    expect(linksHtml([{ label: 'this path', href: undefined, current: true }, { label: 'the other', href: 'b/x.html#t1', quality: 'exact_unique', via: 'result' }, { label: 'lost', href: undefined }], '../')?.text).toBe(
      '<ul class="links"><li><strong aria-current="page">this path <span class="here">(you are here)</span></strong></li><li><a href="../b/x.html#t1">the other</a><span class="quality"> correlation: exact_unique</span><span class="via"> via result</span></li><li><span>lost (on no page)</span></li></ul>',
    );
    expect(evidenceLinksHtml([], '../')).toBeUndefined();
    expect(linksHtml([], '../')).toBeUndefined();
    const fold = stepFoldHtml(step({ kind: 'llm.call', usage: { input: 10, output: 20 } as StepView['usage'], fragments: 3 }), '../', []).text;
    expect(fold).toBe('<details class="ev"><summary title="evidence and notes: llm.call">evidence</summary><div class="ev-body"><p><a href="../glossary.html#g-llm-call">llm.call</a> · 3 fragments</p><p class="usage">tokens: input 10, output 20, cache read –, cache write –</p></div></details>');
    expect(stepFoldHtml(step({ kind: 'llm.call', fragments: 1 }), '../', []).text).toContain('llm.call</a> · 1 fragment</p>');
    const talk = { number: 2, startedBy: HOSTILE, start: { seq: 1, row: 7, file: 'bundle/s/t.jsonl', page: 'e/s--1.html#row-7' }, links: [{ label: 'turn', href: 'c/s.html#n1' }] } as unknown as TalkView;
    expect(talkFoldHtml(talk, '../').text).toBe(
      `<details class="ev"><summary title="evidence and notes: talk 2">evidence</summary><div class="ev-body"><p>Talk 2, started by ${escapeHtml(HOSTILE)}.</p><p class="evidence">Landed records:<a href="../e/s--1.html#row-7">{seq 1, row 7}</a></p><ul class="links"><li><a href="../c/s.html#n1">turn</a></li></ul></div></details>`,
    );
  });
});
