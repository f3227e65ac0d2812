// A page is kept from its conversation's earlier render only when the digest
// of its model is the same, so the digest must change with anything the page
// shows and with nothing else.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pageDigest } from '../../src/site/models/view-digests.ts';
import { ConversationRows } from '../../src/site/models/rows.ts';
import type { SessionDataRow } from '../../src/session-data/format.ts';
import type { PageModel } from '../../src/site/models/site.ts';
import { temporaryFolder } from '../helpers.ts';

function model(text = 'café ☕ über', options: { epoch?: string; failed?: boolean; bytes?: number; labels?: string[] } = {}): PageModel {
  const segment: Record<string, unknown> = { text, language: 'ts' };
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
  it('is the same for the same model', () => {
    expect(digest(model())).toBe(digest(model()));
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

  it('of an outline, changes with the .sd its steps cite rows of, and with the rows cited', () => {
    // An outline: steps with evidence and no parts, one of them a child step.
    const outline = (refs: { seq: number; row: number }[][]): PageModel =>
      ({
        ...model(),
        talks: [{ id: 't1', number: 1, loose: [], runs: [{ steps: refs.map((evidence, index) => ({ id: `s${index}`, evidence, parts: [], children: index === 0 ? [{ id: 'child', evidence: [{ seq: 1, row: 3 }], parts: [], children: [] }] : [] })) }] }],
        epochBefore: new Map(),
      }) as unknown as PageModel;
    const folder = temporaryFolder();
    const lines = ['{"header":1}', '{"row":1,"text":"one"}', '{"row":2,"text":"two"}', '{"row":3,"text":"three"}'];
    // Rows of landed file 1 as its .sd holds them, and of file 2.
    const rowsOf = (text: string[], other = lines): ConversationRows => {
      const rows = new ConversationRows();
      for (const [seq, content] of [[1, text], [2, other]] as const) {
        const file = path.join(folder, `${seq}.sd`);
        fs.writeFileSync(file, `${content.join('\n')}\n`);
        let offset = 0;
        content.forEach((line, index) => {
          if (index > 0) rows.add(seq, file, { row: { row: index, parts: [] } as unknown as SessionDataRow, offset, length: Buffer.byteLength(line) }, false);
          offset += Buffer.byteLength(line) + 1;
        });
        rows.read(seq, crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
      }
      return rows;
    };
    const page = outline([[{ seq: 1, row: 1 }], [{ seq: 1, row: 2 }]]);
    const of = (text: string[], shown = page, other = lines): string => pageDigest(shown, 'c/one-2.html', 'code-1', rowsOf(text, other));
    const base = of(lines);
    expect(of(lines)).toBe(base);
    // A .sd none of the page's rows are in changes nothing.
    expect(of(lines, page, lines.map((line, index) => (index === 1 ? '{"row":1,"text":"ONE"}' : line)))).toBe(base);
    const changed = [
      of(lines.map((line, index) => (index === 2 ? '{"row":2,"text":"TWO"}' : line))),
      of(lines.map((line, index) => (index === 3 ? '{"row":3,"text":"THREE"}' : line))),
      of(lines, outline([[{ seq: 1, row: 2 }], [{ seq: 1, row: 1 }]])),
      of(lines, outline([[{ seq: 1, row: 1 }, { seq: 1, row: 2 }], []])),
      of(lines, outline([[{ seq: 1, row: 1 }], [{ seq: 2, row: 2 }]])),
      of(lines, outline([[{ seq: 1, row: 1 }], [{ seq: 1, row: 9 }]])),
      pageDigest(page, 'c/one-2.html', 'code-1'),
    ];
    for (const other of changed) expect(other).not.toBe(base);
    expect(new Set(changed).size).toBe(changed.length);
  });

  it('of an outline, cannot be made before the rows of a .sd it cites are all read', () => {
    const rows = new ConversationRows();
    rows.add(1, 'rows.sd', { row: { row: 1, parts: [] } as unknown as SessionDataRow, offset: 0, length: 2 }, false);
    const page = { ...model(), talks: [{ id: 't1', loose: [{ id: 's', evidence: [{ seq: 1, row: 1 }], parts: [], children: [] }], runs: [] }], epochBefore: new Map() } as unknown as PageModel;
    expect(() => pageDigest(page, 'c/one-2.html', 'code-1', rows)).toThrow(/rows.sd: its rows are asked for before it was read whole/);
  });
});
