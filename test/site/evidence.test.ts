// The evidence pages' model, writer and script: a landed file split into
// pages of whole rows, each row under its anchor, held as landed and
// compressed, and pretty-printed by the page's script as text; no byte of a
// record can be read as markup, so a record holding markup or a script's
// address is shown as text and never run or followed.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { headerLine, recordLine } from '../../src/landing/landed-file.ts';
import { CONTENT_SECURITY_POLICY } from '../../src/site/models/content-security.ts';
import { EvidencePages, evidencePageFile, evidencePagesOf, lineLengthsOf, pageOfLine, pageStarts, ROW_WEIGHT, rowAnchor } from '../../src/site/models/evidence.ts';
import { evidencePageBytes, evidencePageDigest, writeEvidencePages } from '../../src/site/generator/evidence-pages.ts';
import { relativeLinksOf } from '../../src/site/generator/relative-links.ts';
import { temporaryFolder } from '../helpers.ts';
import { evidenceData, evidenceRows, evidenceScript } from './evidence-script.ts';

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

const script = evidenceScript();

/** A line pretty-printed as the page's script shows it. */
function prettyJson(text: string): string {
  return script.prettyJson(text);
}

/**
 * The printer written plainly, for comparison: its tokens found by one
 * expression, white space between them dropped.
 */
function plainPrettyJson(text: string): string {
  const tokens = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"|"[\s\S]*|[{}[\],:]|[^\s{}[\],:"]+/g;
  const indent = (depth: number): string => `\n${'  '.repeat(depth)}`;
  let out = '';
  let depth = 0;
  let opened = false;
  for (const [found] of text.matchAll(tokens)) {
    if (opened) {
      opened = false;
      if (found === '}' || found === ']') {
        depth--;
        out += found;
        continue;
      }
      out += indent(depth);
    }
    if (found === '{' || found === '[') {
      out += found;
      depth++;
      opened = true;
    } else if (found === '}' || found === ']') {
      depth = Math.max(0, depth - 1);
      out += indent(depth) + found;
    } else if (found === ',') out += `,${indent(depth)}`;
    else if (found === ':') out += ': ';
    else out += found;
  }
  return out;
}

/** A generator of numbers in [0, 1) from a seed, the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
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

  it('pretty-print every line as the plain printer does, JSON or not', () => {
    const tricky = [
      '{"a":"\\"\\\\","b":"\\u003c/script\\u003e","c":"</script><script>alert(1)</script>","d":"&amp; &lt;"}',
      '{"é":"naïve – 漢字 😀","\\ud83d\\ude00":"\\n\\t\\\\n"}',
      '[[],{},[[]],{"a":{}},[{}],[[[[]]]]]',
      '[1e5,-0.0,1E-7,-12345678901234567890123,0.10,true,false,null]',
      `{"long":"${'x<y&z>'.repeat(50_000)}","tail":1}`,
      ' { "spaced" :\t[ 1 ,\r 2 ] , "e" : { } } ',
      '{"a":1}}}]],[',
      ']]]}}{',
      '"open string \\" with <markup> & more',
      '{"a":"ends in a backslash\\',
      'not json at all: <b>bold</b> & 1 < 2',
      '\u00a0{\u2028"a"\u2029:\u3000[\ufeff1\u00a0,\u20002]\u205f}\u1680',
      'x\u00a0y\u200bz\u180e{\u00a9}',
      '\v{\f"a":\v1}',
      '{"control":"\u0001\u001f","nul":"\u0000"}',
      `${'['.repeat(3000)}1${']'.repeat(3000)}`,
      `${'{"a":'.repeat(500)}{}${'}'.repeat(500)}`,
      '',
      '   ',
      '"',
      '\\',
    ];
    for (const text of tricky) {
      expect(prettyJson(text)).toBe(plainPrettyJson(text));
    }
    // Valid JSON as JSON.stringify writes it reads the same as JSON.stringify's own indentation.
    const written = tricky.filter((text) => {
      try {
        return JSON.stringify(JSON.parse(text)) === text;
      } catch {
        return false;
      }
    });
    expect(written.length).toBeGreaterThan(2);
    for (const text of written) expect(prettyJson(text)).toBe(JSON.stringify(JSON.parse(text), null, 2));

    const random = seeded(28);
    const pieces = ['{', '}', '[', ']', ',', ':', '"', '\\', '\\"', '"a\\"b"', '"<&>"', '1e5', '-0.0', 'true', 'null', ' ', '\t', '\n', '\r', '\v', '\u00a0', '\u2028', '\u2009', '\ufeff', '\u3000', '\u200b', 'x<y', 'é', '😀', '漢', '&', '>'];
    for (let round = 0; round < 3000; round++) {
      let text = '';
      for (let count = Math.floor(random() * 40); count > 0; count--) text += pieces[Math.floor(random() * pieces.length)];
      expect(prettyJson(text)).toBe(plainPrettyJson(text));
    }
    const value = (depth: number): unknown => {
      const pick = random();
      if (depth > 4 || pick < 0.3) return [1e5, -0, 0.1, 12, 'a "b" <c> & \\ d', 'é😀\u2028', true, null, ''][Math.floor(random() * 9)];
      if (pick < 0.65) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, (_, index) => [`k${index}<&>`, value(depth + 1)]));
    };
    for (let round = 0; round < 1000; round++) {
      const text = JSON.stringify(value(0));
      expect(prettyJson(text)).toBe(plainPrettyJson(text));
      expect(prettyJson(text)).toBe(JSON.stringify(JSON.parse(text), null, 2));
    }
  });

  it('hold each row as landed, byte for byte, and show a line that is not UTF-8 as a decoder reads it, with its landed size', () => {
    const bundle = temporaryFolder();
    const landed = `${SESSION}/streams/main/transcript-20260101T000000.000Z-000003.jsonl`;
    const file = path.join(bundle, landed);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const header = headerLine({ h: 1, seq: 3, at: '2026-01-01T00:00:00.000Z', kind: 'transcript', adapter: 'claude-code/0.1.0', src: 'project/session.jsonl', session: SESSION, stream: 'main', derived: 'redacted', state: 'available' });
    const invalid = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x3c, 0xe2, 0x80, 0x22, 0x7d]);
    fs.writeFileSync(file, Buffer.concat([Buffer.from(header), invalid, Buffer.from('\n{"b":2}\n')]));
    const [page] = [...evidencePagesOf(SESSION, 3, landed, file)];
    expect(page!.rows.map(({ bytes }) => bytes)).toEqual([Buffer.byteLength(header) - 1, 13, 7]);
    const html = evidencePageBytes(page!).toString('utf8');
    // The page's rows expand to the landed file's bytes exactly.
    expect(Buffer.from(script.landedBytes(evidenceData(html))).equals(fs.readFileSync(file))).toBe(true);
    const rows = evidenceRows(html, script);
    expect(rows).toHaveLength(3);
    expect(prettyJson(rows[1]!)).toBe(plainPrettyJson(invalid.toString('utf8')));
    expect(prettyJson(rows[1]!)).toContain('"a": "\ufffd\ufffd<\ufffd"');
    expect(script.sizeText(13)).toBe('13 B');
    expect(script.sizeText(1536)).toBe('1.5 KB');
    expect(script.sizeText(3 * 1024 * 1024)).toBe('3.0 MB');
  });

  it('give every row its page and its anchor, naming its line, and agree with the links of the conversation pages', () => {
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

    const lines = fs.readFileSync(file, 'utf8').split('\n');
    for (const page of pages) {
      const html = evidencePageBytes(page).toString('utf8');
      // An anchor a row, in order, each naming its line; and the rows themselves, those lines as landed.
      expect([...html.matchAll(/<li id="row-(\d+)">line (\d+)<\/li>/g)].map((match) => [Number(match[1]), Number(match[2])])).toEqual(page.rows.map(({ row }) => [row, row + 1]));
      expect(evidenceRows(html, script)).toEqual(page.rows.map(({ row }) => lines[row]));
    }
    const html = evidencePageBytes(pages[1]!).toString('utf8');
    const [first, last] = [pages[1]!.rows[0]!.row, pages[1]!.rows.at(-1)!.row];
    expect(html).toContain(`: these rows are its lines ${first + 1}–${last + 1}.</p>`);
    expect(html).toContain('<ol class="row-anchors" data-seq="3">');
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`);
    expect(html).toContain(`<a href="../c/${SESSION}.html">`);
    expect(html).toContain(`<a href="../../bundle/${landed}">`);
    expect(html).toContain(`<a href="../${pages[0]!.file}" rel="prev">`);
    expect(html).toContain(`<a href="../${pages[2]!.file}" rel="next">`);
    // The site's own scripts, by file, after the rows: the decoder, then the one that shows them.
    expect([...html.matchAll(/<script[^>]*>/g)].map(([tag]) => tag)).toEqual(['<script src="../fzstd.js">', '<script src="../evidence.js">']);
  });

  it('hold no text of a row as markup: the rows are base64 of their compressed bytes, and markup in them stays text', () => {
    const hostile = ['<script>alert(1)</script>', '</pre><img src=x onerror=alert(1)>', 'javascript:alert(document.cookie)', '<a href="javascript:alert(1)">click</a>', ' src="https://remote.invalid/x.js" href="/etc/passwd"', '&lt;already escaped&gt;', '</div><script>alert(2)</script>'];
    const payloads = [JSON.stringify({ content: hostile }), JSON.stringify({ [hostile[0]!]: hostile[1] })];
    const { landed, file } = landedFile(payloads);
    const [page] = [...evidencePagesOf(SESSION, 3, landed, file)];
    const html = evidencePageBytes(page!).toString('utf8');
    // The data is base64 alone, which no byte of a transcript can end or turn into markup.
    expect(evidenceData(html)).toMatch(/^[A-Za-z0-9+/]+=*$/);
    for (const text of hostile) expect(html).not.toContain(text);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('javascript:');
    expect(html.match(/<script/g)).toHaveLength(2);
    // The only links are the page's own, none of them to a script.
    const hrefs = [...html.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]!);
    expect(hrefs.every((href) => href.startsWith('../'))).toBe(true);
    // The rows as landed, the markup in them JSON text, which the page's script puts in as text.
    const rows = evidenceRows(html, script);
    expect(rows.slice(1)).toEqual(fs.readFileSync(file, 'utf8').split('\n').slice(1, 3));
    expect(rows[1]).toContain(JSON.stringify(hostile[0]));
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
    const againOut = temporaryFolder();
    const again = writeEvidencePages(bundle, againOut, SESSION, 'code', (page, digest) => (digests.get(page) === digest ? out : undefined));
    expect(again.map(({ file: page }) => page)).toEqual(first.map(({ file: page }) => page));
    expect(again.map(({ kept }) => kept)).toEqual(first.map((_, index) => index < first.length - 1));
    // The SHA-256 of each page's bytes, written or kept, is that of the file in the site.
    for (const [folder, pages] of [[out, first], [againOut, again]] as const) {
      for (const { file: page, sha256 } of pages) expect(sha256).toBe(crypto.createHash('sha256').update(fs.readFileSync(path.join(folder, page))).digest('hex'));
    }
    // Another code is another digest.
    const [page] = [...evidencePagesOf(SESSION, 3, 'x', file)];
    expect(evidencePageDigest(page!, 'code')).not.toBe(evidencePageDigest(page!, 'other code'));
    // So are other rows with the same model: another byte of a row, or the same bytes as other rows.
    const changed = Buffer.from(page!.landedBytes);
    changed[changed.length - 2] = changed[changed.length - 2]! ^ 1;
    expect(evidencePageDigest({ ...page!, landedBytes: changed }, 'code')).not.toBe(evidencePageDigest(page!, 'code'));
    expect(evidencePageDigest({ ...page!, rows: page!.rows.map((row) => ({ ...row, row: row.row + 1 })) }, 'code')).not.toBe(evidencePageDigest(page!, 'code'));
  });
});
