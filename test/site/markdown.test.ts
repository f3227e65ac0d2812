// Transcript text rendered as markdown: the structure a reader expects, and
// nothing a transcript holds that could run, fetch or lead off to anything
// but a web address.

import { describe, expect, it } from 'vitest';
import { markdownHtml } from '../../src/site/models/markdown.ts';
import { HOSTILE_MARKUP } from '../../scripts/write-fixtures.ts';

describe('markdown in a transcript', () => {
  it('renders headings, lists, tables, emphasis and inline code', () => {
    const html = markdownHtml('## Plan\n\n1. **read** the file\n2. _edit_ it\n\n- `npm test`\n\n| a | b |\n|---|---|\n| 1 | 2 |');
    expect(html).toContain('<h2>Plan</h2>');
    expect(html).toContain('<ol>\n<li><strong>read</strong> the file</li>');
    expect(html).toContain('<em>edit</em>');
    expect(html).toContain('<code>npm test</code>');
    expect(html).toContain('<td>1</td>');
  });

  it('keeps a line break as the writer made it', () => {
    const html = markdownHtml('**Task 1**: the schema\n**Task 2**: the renderer\n\nA new paragraph');
    expect(html).toContain('<p><strong>Task 1</strong>: the schema<br>\n<strong>Task 2</strong>: the renderer</p>');
    expect(html).toContain('<p>A new paragraph</p>');
  });

  it('keeps the spaces that start a line after a line break, as spaces', () => {
    const html = markdownHtml('The config:\n{\n  "a": 1,\n  "b": {\n\t"c": 2\n  }\n}');
    expect(html).toContain('{<br>\n<span class="indent">  </span>&quot;a&quot;: 1,<br>\n<span class="indent">  </span>&quot;b&quot;: {<br>\n<span class="indent">\t</span>&quot;c&quot;: 2<br>');
    // Markup in the spaces' place is text, as everywhere.
    expect(markdownHtml('a\n  <b>x</b>')).toContain('<span class="indent">  </span>&lt;b&gt;x&lt;/b&gt;');
    // A list item's own indentation is the list's, not the text's.
    expect(markdownHtml('- item\n  continues')).toContain('<li>item<br>\ncontinues</li>');
  });

  it('shows raw HTML as text', () => {
    const html = markdownHtml('<script>window.x = 1</script> <img src=x onerror="y()"> <details open>');
    expect(html).not.toMatch(/<(script|img|details)/);
    expect(html).toContain('&lt;script&gt;window.x = 1&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=&quot;y()&quot;&gt;');
  });

  it('links only http(s) addresses, and shows the address', () => {
    const html = markdownHtml('[docs](https://example.invalid/docs) [x](javascript:alert(1)) [y](JavaScript:alert(1)) [z](data:text/html,hi) [w](//host/x) [v](file:///etc/passwd) <https://example.invalid/auto>');
    expect([...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1])).toEqual(['https://example.invalid/docs', 'https://example.invalid/auto']);
    expect(html).toContain('<span class="address">(https://example.invalid/docs)</span>');
    expect(html).toContain('[x](javascript:alert(1))');
  });

  it('never fetches an image: it is shown as its description and address', () => {
    const html = markdownHtml('![a pixel](https://remote.invalid/p.png "t") ![local](/etc/x.png)');
    expect(html).not.toContain('<img');
    expect(html).toContain('[image: a pixel] https://remote.invalid/p.png');
  });

  it('keeps the hostile fixture’s markdown inert', () => {
    const html = markdownHtml(HOSTILE_MARKUP.markdown);
    expect(html).not.toMatch(/<(script|img|details|svg)|href="(?!https:)/i);
    expect(html).toContain('<h2>Findings</h2>');
    expect(html).toContain('href="https://example.invalid/docs"');
  });
});
