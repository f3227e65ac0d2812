// A page's talks as components/talks.ts renders them, from a model made here.

import { describe, expect, it } from 'vitest';
import { CODE_LINES_ON_PAPER, codeHtml, talksHtml } from '../../src/site/components/talks.ts';
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

describe('an image of the transcript', () => {
  const file = `images/${'a'.repeat(64)}.png`;
  const image = (fields: Partial<PartView>): PartView => ({ kind: 'media', state: 'available', bytes: 48_213, shownBytes: 0, heldBytes: 0, segments: [], label: 'image/png', long: false, ...fields });

  it('is an image file of the site, loaded lazily, laid out from its size, inside a link that opens it at full size', () => {
    const page = html(talkOf('message.external', image({ image: { file, width: 1200, height: 700, alt: 'Image pasted in the prompt, image/png, 47.1 KB' } })));
    expect(page).toContain(
      `<figure class="part p-media image"><a class="image-link" href="../${file}" title="Open the image at full size"><img src="../${file}" alt="Image pasted in the prompt, image/png, 47.1 KB" width="1200" height="700" loading="lazy" decoding="async"></a><figcaption>image/png, ${bytes(48_213)}, 1200 × 700 pixels</figcaption></figure>`,
    );
  });

  it('is shown inside a tool card as what the call returned, not as a call that returned nothing', () => {
    const empty: PartView = { kind: 'result', state: 'available', bytes: 0, shownBytes: 0, heldBytes: 0, segments: [], long: false };
    const returned = image({ image: { file, alt: 'Image returned by the tool, image/png, 47.1 KB' } });
    const step = { id: 'n1', anchor: 'n1', kind: 'tool', evidence: [], parts: [empty, returned], flags: [], qualities: [], links: [], unresolved: [], children: [] } as StepView;
    const page = html({ ...talkOf('tool', empty), loose: [step] });
    expect(page).toContain(`<img src="../${file}" alt="Image returned by the tool, image/png, 47.1 KB" loading="lazy" decoding="async">`);
    expect(page).not.toContain('The call returned nothing.');
    expect(html(talkOf('tool', empty))).toContain('The call returned nothing.');
  });

  it('escapes every word of the model it is made from', () => {
    const page = html(talkOf('message.external', image({ label: 'image/png"><script>', image: { file: 'images/x".png', alt: '"><script>window.__xss=1</script>' } })));
    expect(page).not.toContain('<script>');
    expect(page).toContain('src="../images/x&quot;.png"');
    expect(page).toContain('alt="&quot;&gt;&lt;script&gt;window.__xss=1&lt;/script&gt;"');
  });

  it('is named by its type and size, with why, when the page does not show it, and nothing is fetched', () => {
    const page = html(talkOf('message.external', image({ notShown: 'its bytes are not a PNG image but markup (HTML, SVG or XML)' })));
    expect(page).toContain(`<div class="part p-media"><p class="media-note s-available"><span class="state">image/png, ${bytes(48_213)}: not shown</span>: its bytes are not a PNG image but markup (HTML, SVG or XML)</p></div>`);
    expect(page).not.toContain('<img');
    const redacted = html(talkOf('message.external', image({ state: 'redacted', removed: 48_213, notShown: 'left out of this redacted export' })));
    expect(redacted).toContain('<p class="media-note s-redacted"><span class="state">image/png, 47.1 KB: not shown</span>: left out of this redacted export</p>');
    // Its state is said once, in its own words: "Secrets taken out" would not be what befell it.
    expect(redacted).not.toContain('Secrets taken out');
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

describe('code on paper', () => {
  const code = (lines: number): string => codeHtml({ text: Array.from({ length: lines }, (_, line) => `echo ${line}`).join('\n'), language: 'sh' }).text;

  it('is cut after as many lines as the screen shows before it scrolls, with a note for paper alone saying how many it has', () => {
    expect(code(CODE_LINES_ON_PAPER)).not.toContain('cut-on-paper');
    expect(code(CODE_LINES_ON_PAPER)).not.toContain('cut-note');
    const long = code(CODE_LINES_ON_PAPER + 12);
    expect(long).toMatch(/^<pre class="code cut-on-paper">echo 0\n/);
    expect(long).toMatch(new RegExp(`</pre><p class="print-only cut-note">Cut on paper after about ${CODE_LINES_ON_PAPER} lines of ${CODE_LINES_ON_PAPER + 12}; the page on screen holds every line\\.</p>$`));
  });
});
