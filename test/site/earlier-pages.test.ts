// A page is kept from its conversation's earlier render only when the digest
// of its model is the same, so the digest must change with anything the page
// shows and with nothing else.

import { describe, expect, it } from 'vitest';
import { pageDigest } from '../../src/site/data/earlier-pages.ts';
import type { PageModel } from '../../src/site/data/site.ts';

function model(text = 'café ☕ über', options: { html?: string; epoch?: string; failed?: boolean; bytes?: number; labels?: string[] } = {}): PageModel {
  const segment: Record<string, unknown> = { text, language: 'ts' };
  if (options.html !== undefined) segment.html = options.html;
  return {
    plan: { file: 'c/one-2.html', kind: 'conversation', conversation: 'one', subject: '', number: 2, of: 3, stream: 'stream/main', talks: ['t1'], siblings: ['c/one.html', 'c/one-2.html', 'c/one-3.html'] },
    conversation: { id: 'one', first: 'c/one.html' },
    heading: 'Conversation one',
    streamLinks: [],
    talks: [{ id: 't1', number: 1, labels: options.labels ?? ['a', 'b'], runs: [{ steps: [{ parts: [{ kind: 'result', failed: options.failed ?? false, bytes: options.bytes ?? 12, segments: [segment] }] }] }] }],
    epochBefore: new Map([['t1', { id: options.epoch ?? 'epoch/1' }]]),
    forksAfter: new Map(),
    forksAtStart: [],
    timeline: [],
  } as unknown as PageModel;
}

const digest = (page: PageModel, file = 'c/one-2.html', code = 'code-1'): string => pageDigest(page, file, code);

describe('the digest of a page model', () => {
  it('is the same for the same model, whatever highlighted HTML its segments hold', () => {
    expect(digest(model())).toBe(digest(model()));
    expect(digest(model(undefined, { html: '<span>café</span>' }))).toBe(digest(model()));
  });

  it('changes with any text, number, flag, map value, list, talk, the file or the code', () => {
    const base = digest(model());
    const changed = [
      digest(model('cafe ☕ über')),
      digest(model(undefined, { bytes: 13 })),
      digest(model(undefined, { failed: true })),
      digest(model(undefined, { epoch: 'epoch/2' })),
      digest(model(undefined, { labels: ['ab'] })),
      digest(model(undefined, { labels: ['a', 'b', ''] })),
      digest({ ...model(), talks: [...model().talks, ...model().talks] }),
      digest({ ...model(), talks: [] }),
      digest(model(), 'c/one-3.html'),
      digest(model(), 'c/one-2.html', 'code-2'),
    ];
    for (const other of changed) expect(other).not.toBe(base);
    expect(new Set(changed).size).toBe(changed.length);
  });

  it('tells apart strings that join into the same text', () => {
    expect(digest(model(undefined, { labels: ['ab', 'c'] }))).not.toBe(digest(model(undefined, { labels: ['a', 'bc'] })));
  });

  it('takes a text longer than its buffer whole', () => {
    const long = `${'é'.repeat(400_000)}x`;
    expect(digest(model(long))).toBe(digest(model(long)));
    expect(digest(model(long))).not.toBe(digest(model(`${long.slice(0, -1)}y`)));
  });
});
