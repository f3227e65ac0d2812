// A page's talks as views/talks.ts renders them, from a model made here.

import { describe, expect, it } from 'vitest';
import { CODE_LINES_ON_PAPER, codeHtml, talksHtml } from '../../src/site/views/talks.ts';
import type { EpochView, PartView, StepView, TalkView } from '../../src/site/models/views.ts';
import type { Notice } from '../../src/model/notices.ts';
import { bytes } from '../../src/site/models/shown-text.ts';

function talkOf(kind: string, part: PartView): TalkView {
  const step = { id: 'n1', anchor: 'n1', kind, evidence: [], parts: [part], flags: [], qualities: [], links: [], unresolved: [], children: [] } as StepView;
  return { id: 't1', anchor: 't1', number: 1, epoch: 'e1', startedBy: 'human', runs: [], loose: [step], links: [], keys: [] };
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

// A step of the model, with what a test needs of it; a part of text or data.
function step(kind: string, fields: Partial<StepView> = {}): StepView {
  const id = fields.id ?? `${kind}-${Math.random().toString(36).slice(2, 8)}`;
  return { id, anchor: `n-${id}`, kind, evidence: [], parts: [], flags: [], qualities: [], links: [], unresolved: [], children: [], ...fields } as StepView;
}
function text(value: string, kind: PartView['kind'] = 'text', state: PartView['state'] = 'available'): PartView {
  return { kind, state, bytes: value.length, shownBytes: value.length, heldBytes: value.length, segments: value ? [{ text: value }] : [], long: false };
}
function data(value: unknown): PartView {
  const json = JSON.stringify(value, null, 2);
  return { kind: 'data', state: 'available', bytes: json.length, shownBytes: json.length, heldBytes: json.length, segments: [{ text: json, language: 'json' }], long: false };
}
function run(...steps: StepView[]): TalkView {
  return { id: 't1', anchor: 't1', number: 1, epoch: 'e1', startedBy: 'human', runs: [{ id: 'r1', anchor: 'r1', qualities: [], steps }], loose: [], links: [], keys: [] };
}
const call = (id: string, time: string, usage: StepView['usage'], children: StepView[] = []): StepView =>
  step('llm.call', { id, time, usage, qualities: [{ name: 'model', value: 'claude-sonnet-4-6' }], children: [step('message.assistant', { parts: [text(`reply of ${id}`)] }), ...children] });
const notice = (kind: string, value: Notice, parts: PartView[] = [], time?: string): StepView => step(kind, { notice: value, parts, ...(time ? { time } : {}) });
const count = (page: string, mark: string): number => page.split(mark).length - 1;

describe('an assistant’s reply between two prompts', () => {
  const prompt = (words: string): StepView => step('message.external', { parts: [text(words)] });
  const talk = run(
    prompt('Fix the build.'),
    call('c1', '2026-05-05T21:07:05.000Z', { input: 100, cache_read: 19_900, output: 244 }, [step('tool', { parts: [] })]),
    notice('runtime.notification', { kind: 'hook', name: 'PostToolUse', ms: 92 }, [text('Status set to busy')], '2026-05-05T21:07:06.000Z'),
    call('c2', '2026-05-05T21:08:05.000Z', { input: 10, cache_read: 21_000, output: 364 }),
    call('c3', '2026-05-05T21:08:11.000Z', undefined),
    prompt('Now the tests.'),
    call('c4', '2026-05-05T21:10:00.000Z', { input: 5, output: 7 }),
  );
  const page = html(talk);

  it('is one block under one “Assistant” header, however many provider calls it made', () => {
    expect(count(page, '<span class="role">Assistant</span>')).toBe(2);
    expect(count(page, '<article class="reply assistant">')).toBe(2);
    // Each call keeps its anchor, where a search result or a link lands.
    for (const id of ['c1', 'c2', 'c3', 'c4']) expect(page).toContain(`<div class="step call" id="n-${id}">`);
    // The runtime's note between two calls sits inside the reply, not between two headers.
    const first = page.slice(page.indexOf('<article class="reply assistant">'), page.indexOf('Now the tests.'));
    expect(first).toContain('Hook · PostToolUse');
    expect(first).toContain('reply of c3');
  });

  it('sums its calls’ tokens on its header, ≥ when a call did not say, and names each call in the tooltip', () => {
    const header = page.slice(page.indexOf('<header class="who"><span class="role">Assistant'), page.indexOf('</header>', page.indexOf('<span class="role">Assistant')));
    expect(header).toContain('<span class="model" title="claude-sonnet-4-6">claude-sonnet-4-6</span>');
    expect(header).toContain('>≥ 41k tokens in, 608 out</span>');
    expect(header).toContain('title="tokens of 3 provider calls: input 110, cache read 40,900, cache write not recorded, output 608\ncall 1 at 21:07:05, claude-sonnet-4-6: 20k tokens in, 244 out\ncall 2 at 21:08:05, claude-sonnet-4-6: 21k tokens in, 364 out\ncall 3 at 21:08:11, claude-sonnet-4-6: tokens not recorded"');
    expect(header).toContain('<time class="when" dateTime="2026-05-05T21:07:05.000Z" title="2026-05-05T21:07:05.000Z">21:07:05</time><span class="span"');
    expect(header).toContain('>1 min 6 s</span>');
  });

  it('gives each call its own figures and evidence, shown only with the page’s evidence', () => {
    expect(count(page, '<div class="call-head ev-only">')).toBe(4);
    expect(page).toContain('<div class="call-head ev-only"><span class="turn-facts"><span class="model" title="claude-sonnet-4-6">claude-sonnet-4-6</span><span class="tokens" title="tokens of this call: input 100, cache read 19,900, cache write not recorded, output 244">20k tokens in, 244 out</span>');
  });
});

describe('the runtime’s notes', () => {
  const hook = (ms: number): StepView => notice('runtime.notification', { kind: 'hook', name: 'PostToolUse', ms }, [text('Status set to busy: -experiments/worktrees'), data({ type: 'hook_success', durationMs: ms })], '2026-04-18T13:19:12.000Z');
  const turn = notice('turn.duration', { kind: 'turn', ms: 92_641 }, [data({ durationMs: 92_641, messageCount: 35 })], '2026-04-18T13:20:00.000Z');
  const reminder = step('context.injection', { flags: ['injected'], parts: [{ ...text('Remember the task list.'), context: 'System reminder' }] });

  it('fold into one line that counts them and names what they are, each inside it on a line of its own', () => {
    const page = html(run(step('message.external', { parts: [text('Go.')] }), call('c1', '2026-04-18T13:19:11.000Z', undefined), hook(92), hook(78), reminder, turn));
    expect(count(page, '<details class="runtime-group">')).toBe(1);
    expect(page).toContain('<span class="label">4 runtime notes</span>');
    expect(page).toContain('<span class="first-line">Hook · PostToolUse ×2 · System reminder · Turn took 1 min 33 s</span>');
    expect(count(page, 'class="step runtime"')).toBe(4);
  });

  it('are named in plain words, never by the runtime’s field names nor as JSON', () => {
    const page = html(run(turn, step('message.external', { parts: [text('Go.')] }), hook(1203)));
    expect(page).toContain('<span class="label">Turn took 1 min 33 s</span>');
    expect(page).toContain('<span class="label">Hook · PostToolUse · 1.2 s</span>');
    expect(page).toContain('<span class="first-line">Status set to busy: -experiments/worktrees</span>');
    for (const raw of ['durationMs', 'messageCount', 'hook_success', '{']) expect(page).not.toContain(raw);
  });

  it('fold into one line before the first talk too, where a session’s start hooks are', () => {
    const start: EpochView = { id: 'e1', anchor: 'e1', number: 1, steps: [hook(1203), hook(106)], links: [] };
    const talk = run(step('message.external', { parts: [text('Go.')] }));
    const page = talksHtml({ talks: [talk], epochBefore: new Map([[talk.id, start]]), forksAfter: new Map(), root: '../' });
    expect(count(page, '<details class="runtime-group">')).toBe(1);
    expect(page).toContain('<span class="first-line">Hook · PostToolUse ×2</span>');
  });

  it('keep an interruption on a line of its own, open', () => {
    const page = html(run(hook(5), step('control.interrupt', { parts: [text('[Request interrupted by user]')] }), hook(6)));
    expect(count(page, '<details class="runtime-group">')).toBe(0);
    expect(page).toContain('<div class="step runtime alone" id="n-control.interrupt');
  });
});

describe('a compaction', () => {
  const epoch = (value: Notice | undefined): string => {
    const boundary = step('epoch.boundary', { id: 'b1', time: '2026-05-06T00:49:58.710Z', ...(value ? { notice: value } : {}), parts: [text('Conversation compacted'), data({ compactMetadata: { trigger: 'auto' } })] });
    const summary = step('epoch.summary', { id: 's1', parts: [text('This session is being continued from a previous conversation.\nThe summary.')] });
    const before: EpochView = { id: 'e2', anchor: 'e2', number: 2, steps: [boundary, summary], links: [] };
    const talk = run(step('message.external', { parts: [text('Go on.')] }));
    return talksHtml({ talks: [talk], epochBefore: new Map([[talk.id, before]]), forksAfter: new Map(), root: '../' });
  };

  it('is one divider that says what happened, with the summary folded right under it', () => {
    const page = epoch({ kind: 'compaction', trigger: 'automatic', tokens_before: 173_429, tokens_after: 7_850, ms: 135_906 });
    expect(page).toContain('<div class="step boundary" id="n-b1"><p class="compaction" role="separator" title="the compaction took 2 min 16 s"><span>Compacted automatically: 173k → 7.9k tokens at <time');
    const divider = page.indexOf('class="compaction"');
    expect(page.indexOf('id="n-s1"')).toBeGreaterThan(divider);
    expect(page.indexOf('id="n-s1"')).toBeLessThan(page.indexOf('class="talk"'));
    expect(page).toContain('Summary carried into the new context');
    expect(page).not.toContain('compactMetadata');
    expect(count(page, 'Conversation compacted')).toBe(0);
  });

  it('made while the agent worked, divides its talk where it happened, and the epoch after it opens with no second divider', () => {
    const boundary = step('epoch.boundary', { id: 'b1', time: '2026-05-06T00:49:58.710Z', notice: { kind: 'compaction', trigger: 'automatic', tokens_before: 170_000, tokens_after: 9_000 } });
    const summary = step('epoch.summary', { id: 's1', parts: [text('This session is being continued.')] });
    const talk = run(step('message.external', { parts: [text('Refactor it.')] }), call('c1', '2026-05-06T00:40:00.000Z', { input: 1, output: 1 }), boundary, summary, call('c2', '2026-05-06T00:50:10.000Z', { input: 1, output: 1 }));
    const next = { ...run(step('message.external', { parts: [text('Thanks.')] })), id: 't2', anchor: 't2', number: 2, epoch: 'e2' };
    const after: EpochView = { id: 'e2', anchor: 'e2', number: 2, steps: [], links: [], boundaryIn: 't1' };
    const page = talksHtml({ talks: [talk, next], epochBefore: new Map([[next.id, after]]), forksAfter: new Map(), root: '../' });
    expect(count(page, 'class="compaction"')).toBe(1);
    const divider = page.indexOf('<div class="step boundary" id="n-b1">');
    expect(divider).toBeGreaterThan(page.indexOf('reply of c1'));
    expect(page.indexOf('id="n-s1"')).toBeGreaterThan(divider);
    expect(page.indexOf('reply of c2')).toBeGreaterThan(page.indexOf('id="n-s1"'));
    // The reply after the compaction has a header of its own: the divider crosses the page's width, not a reply.
    expect(count(page, '<span class="role">Assistant</span>')).toBe(2);
  });

  it('says when a person asked for it, and what the record did not say it leaves out', () => {
    expect(epoch({ kind: 'compaction', trigger: 'manual', tokens_before: 50_000 })).toContain('>Compacted by /compact: 50k tokens before at <time');
    expect(epoch(undefined)).toContain('>Conversation compacted at <time');
  });
});

describe('a thought', () => {
  const thought = (words: string, state: PartView['state'] = 'available'): string => html(run(step('thinking', { id: 'th', parts: [text(words, 'reasoning', state)] })));
  const long = ['First I check the build.', 'Then the tests.', 'Then the linter.', 'Then I write the fix.', 'Then I run it all again.'].join('\n');

  it('shows its first lines, and folds the rest', () => {
    const page = thought(long);
    expect(page).toContain('<details class="step thinking" id="n-th"><summary><span class="label">Thinking</span> <span class="preview">First I check the build.\nThen the tests.\nThen the linter.…</span> <span class="more">show all (5 lines, ');
    expect(page).toContain('Then I run it all again.');
    // A thought of one long line shows its first 300 characters or so, cut at a word.
    const words = thought(`${'word '.repeat(100)}end`);
    const preview = /<span class="preview">([^<]*)<\/span>/.exec(words)![1]!;
    expect(preview.length).toBeLessThanOrEqual(301);
    expect(preview).toMatch(/word…$/);
  });

  it('is shown whole, with no fold, when it is short', () => {
    const page = thought('Weigh the two options.');
    expect(page).toContain('<div class="step thinking" id="n-th"><span class="label">Thinking</span>');
    expect(page).not.toContain('<details class="step thinking"');
  });

  it('shows nothing when the source kept no text of it, but in the evidence view', () => {
    for (const page of [thought('', 'unavailable'), thought('', 'redacted')]) {
      expect(page).toContain('<div class="step thinking-withheld ev-only" id="n-th">');
      expect(page).not.toContain('not held by the source');
      expect(page).not.toContain('class="step thinking"');
    }
  });
});

describe('code for the browser to highlight', () => {
  it('is marked when its language may be highlighted, and written as plain code when it is plain text or too long', () => {
    expect(codeHtml({ text: 'const a = 1;', language: 'ts' }).text).toBe('<pre class="code" data-language="ts" data-highlight="when-shown">const a = 1;</pre>');
    expect(codeHtml({ text: 'just words', language: 'text' }).text).toBe('<pre class="code">just words</pre>');
    expect(codeHtml({ text: 'x'.repeat(24 * 1024 + 1), language: 'ts' }).text).toMatch(/^<pre class="code">x/);
    expect(codeHtml({ text: 'x'.repeat(24 * 1024), language: 'ts' }).text).toMatch(/^<pre class="code" data-language="ts" data-highlight="when-shown">x/);
  });
});

describe('code on paper', () => {
  const code = (lines: number): string => codeHtml({ text: Array.from({ length: lines }, (_, line) => `echo ${line}`).join('\n'), language: 'sh' }).text;

  it('is cut after as many lines as the screen shows before it scrolls, with a note for paper alone saying how many it has', () => {
    expect(code(CODE_LINES_ON_PAPER)).not.toContain('cut-on-paper');
    expect(code(CODE_LINES_ON_PAPER)).not.toContain('cut-note');
    const long = code(CODE_LINES_ON_PAPER + 12);
    expect(long).toMatch(/^<pre class="code cut-on-paper" data-language="sh" data-highlight="when-shown">echo 0\n/);
    expect(long).toMatch(new RegExp(`</pre><p class="print-only cut-note">Cut on paper after about ${CODE_LINES_ON_PAPER} lines of ${CODE_LINES_ON_PAPER + 12}; the page on screen holds every line\\.</p>$`));
  });
});
