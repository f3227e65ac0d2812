// The evidence pages' model and writer: a landed file split into pages of
// whole rows, each row under its anchor, pretty-printed as it was landed,
// and every text escaped, so that a record holding markup or a script's
// address is shown as text and never run or followed.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { headerLine, recordLine } from '../../src/landing/landed-file.ts';
import { CONTENT_SECURITY_POLICY } from '../../src/site/data/content-security.ts';
import { EvidencePages, evidencePageFile, evidencePagesOf, lineLengthsOf, pageOfLine, pageStarts, prettyJson, ROW_WEIGHT, rowAnchor } from '../../src/site/data/evidence.ts';
import { evidencePageDigest, evidencePageHtml, writeEvidencePages } from '../../src/site/generator/evidence-pages.ts';
import { relativeLinksOf } from '../../src/site/generator/relative-links.ts';
import { temporaryFolder } from '../helpers.ts';

const SESSION = 'c0ffee00-0000-4000-8000-000000000001';

/** A landed file of these payloads (each a source line) in a bundle folder; returns the bundle and the file's path inside it. */
function landedFile(payloads: readonly string[]): { bundle: string; landed: string; file: string } {
  const bundle = temporaryFolder();
  const landed = `${SESSION}/streams/main/transcript-20260101T000000.000Z-000003.jsonl`;
  const file = path.join(bundle, landed);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lines: (string | Buffer)[] = [headerLine({ h: 1, seq: 3, at: '2026-01-01T00:00:00.000Z', kind: 'transcript', adapter: 'claude-code/0.1.0', src: 'project/session.jsonl', session: SESSION, stream: 'main', derived: 'redacted', state: 'available' })];
  let offset = 0;
  payloads.forEach((payload, index) => {
    const bytes = Buffer.from(payload, 'utf8');
    lines.push(...recordLine(index + 1, offset, crypto.createHash('sha256').update(bytes).digest('hex'), 'raw', bytes));
    offset += bytes.length + 1;
  });
  fs.writeFileSync(file, Buffer.concat(lines.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece))));
  return { bundle, landed, file };
}

describe('evidence pages', () => {
  it('split a landed file into pages of whole rows, a row past the budget alone on its page', () => {
    // Room for two short rows beside their row weights; line 0 is the header.
    const weight = 2 * ROW_WEIGHT + 400;
    // 100 and 200 share page 0; the next 200 passes the weight and starts page 1; a row longer than the weight stands alone; the last two share a page.
    const lengths = [100, 200, 200, weight, 50, 50];
    const starts = pageStarts(lengths, weight);
    expect(starts).toEqual([0, 2, 3, 4]);
    for (let line = 0; line < lengths.length; line++) {
      const page = pageOfLine(starts, line);
      expect(starts[page]!).toBeLessThanOrEqual(line);
      expect(page + 1 === starts.length || starts[page + 1]! > line).toBe(true);
    }
    expect(pageStarts([], weight)).toEqual([]);
  });

  it('name each page one folder below the root and anchor each row', () => {
    expect(evidencePageFile(SESSION, 3, 0)).toBe(`e/${SESSION}--3.html`);
    expect(evidencePageFile(SESSION, 3, 1)).toBe(`e/${SESSION}--3-2.html`);
    expect(rowAnchor(42)).toBe('row-42');
  });

  it('pretty-print JSON as it was written: numbers, escapes and key order kept, empty containers whole', () => {
    const text = '{"b":1.50,"a":[12345678901234567890,true,null],"s":"a \\"quoted\\" {[,:]}","e":{},"l":[],"n":{"x":[{}]}}';
    const pretty = prettyJson(text);
    expect(pretty).toBe(
      [
        '{',
        '  "b": 1.50,',
        '  "a": [',
        '    12345678901234567890,',
        '    true,',
        '    null',
        '  ],',
        '  "s": "a \\"quoted\\" {[,:]}",',
        '  "e": {},',
        '  "l": [],',
        '  "n": {',
        '    "x": [',
        '      {}',
        '    ]',
        '  }',
        '}',
      ].join('\n'),
    );
    expect(JSON.parse(pretty)).toEqual(JSON.parse(text));
    // Text that is not JSON is shown whole, a string left open included.
    expect(prettyJson('not json "open')).toBe('notjson"open');
  });

  it('give every row its page, its anchor and its label, and agree with the links of the conversation pages', () => {
    const payloads = Array.from({ length: 30 }, (_, index) => JSON.stringify({ type: 'user', index, text: 'x'.repeat(100 + index * 20) }));
    const { bundle, landed, file } = landedFile(payloads);
    expect(lineLengthsOf(file)).toHaveLength(31);
    const pages = [...evidencePagesOf(SESSION, 3, landed, file, 2000)];
    expect(pages.length).toBeGreaterThan(3);
    expect(pages.map((page) => page.number)).toEqual(pages.map((_, index) => index + 1));
    expect(pages.every((page) => page.header.kind === 'transcript' && page.header.derived === 'redacted')).toBe(true);
    expect(pages.flatMap((page) => page.rows.map((row) => row.row))).toEqual(Array.from({ length: 31 }, (_, index) => index));
    expect(pages[0]!.previous).toBeUndefined();
    expect(pages[1]!.previous).toBe(pages[0]!.file);
    expect(pages[0]!.next).toBe(pages[1]!.file);
    expect(pages.at(-1)!.next).toBeUndefined();

    // The conversation pages link each row to the page that holds it, by the default budget.
    const links = new EvidencePages(bundle, SESSION, new Map([[3, landed]]));
    const byDefault = [...evidencePagesOf(SESSION, 3, landed, file)];
    for (const page of byDefault) {
      for (const { row } of page.rows) expect(links.hrefOf({ seq: 3, row })).toBe(`${page.file}#row-${row}`);
    }
    expect(links.hrefOf({ seq: 4, row: 1 })).toBeUndefined();

    const html = evidencePageHtml(pages[1]!);
    for (const { row } of pages[1]!.rows) {
      expect(html).toContain(`<div class="evidence-row" id="row-${row}">`);
      expect(html).toContain(`<a href="#row-${row}">{seq 3, row ${row}}</a>`);
    }
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`);
    expect(html).toContain(`<a href="../c/${SESSION}.html">`);
    expect(html).toContain(`<a href="../../bundle/${landed}">`);
    expect(html).toContain(`<a href="../${pages[0]!.file}" rel="prev">`);
    expect(html).toContain(`<a href="../${pages[2]!.file}" rel="next">`);
    expect(html).toContain('\n    "type": "user",\n');
  });

  it('escape every text of a row: markup, a closing pre and a script address stay text', () => {
    const hostile = ['<script>alert(1)</script>', '</pre><img src=x onerror=alert(1)>', 'javascript:alert(document.cookie)', '<a href="javascript:alert(1)">click</a>', ' src="https://remote.invalid/x.js" href="/etc/passwd"', '&lt;already escaped&gt;'];
    const { landed, file } = landedFile([JSON.stringify({ content: hostile }), JSON.stringify({ [hostile[0]!]: hostile[1] })]);
    const [page] = [...evidencePagesOf(SESSION, 3, landed, file)];
    const html = evidencePageHtml(page!);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('href="javascript:');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('"javascript:alert(document.cookie)"');
    expect(html).toContain('&amp;lt;already escaped&amp;gt;');
    // One <pre> and one </pre> a row: no text closes one early.
    expect(html.match(/<pre/g)).toHaveLength(3);
    expect(html.match(/<\/pre>/g)).toHaveLength(3);
    // The only links are the page's own, none of them to a script.
    const hrefs = [...html.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]!);
    expect(hrefs.every((href) => href.startsWith('../') || href.startsWith('#row-'))).toBe(true);
    // The links of an Astro build's pages are made relative after these pages are written, and find nothing in them to change or refuse.
    expect(relativeLinksOf(Buffer.from(html), page!.file).toString('utf8')).toBe(html);
  });

  it('keep the digest of every page but the last when their landed file grows, and write only what changed', () => {
    const payloads = Array.from({ length: 60 }, (_, index) => JSON.stringify({ type: 'assistant', index, text: 'y'.repeat(20_000) }));
    const { bundle, file } = landedFile(payloads);
    const out = temporaryFolder();
    const first = writeEvidencePages(bundle, out, SESSION, 'code');
    expect(first.length).toBeGreaterThan(2);
    expect(first.every(({ kept }) => !kept)).toBe(true);
    fs.appendFileSync(file, `{"ord":61,"off":0,"sha":"${'0'.repeat(64)}","payload":{"type":"user"}}\n`);
    const digests = new Map(first.map(({ file: page, digest }) => [page, digest]));
    const again = writeEvidencePages(bundle, temporaryFolder(), SESSION, 'code', (page, digest) => (digests.get(page) === digest ? out : undefined));
    expect(again.map(({ file: page }) => page)).toEqual(first.map(({ file: page }) => page));
    expect(again.map(({ kept }) => kept)).toEqual(first.map((_, index) => index < first.length - 1));
    // Another code is another digest.
    const [page] = [...evidencePagesOf(SESSION, 3, 'x', file)];
    expect(evidencePageDigest(page!, 'code')).not.toBe(evidencePageDigest(page!, 'other code'));
  });
});
