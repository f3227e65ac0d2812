// Links made relative to their page, so that a site opens from file:// and
// from any folder of a static host; a page that would reach outside the site
// is refused.

import { describe, expect, it } from 'vitest';
import { relativeLinksOf } from '../../src/site/build/relative-links.ts';

describe('relative links', () => {
  it('point from each page to the site root, whatever its depth, and leave other links alone', () => {
    const html = '<link rel="stylesheet" href="/highlight.css"><a href="/c/one.html#t2">one</a><a href="#t3">here</a><img src="data:image/png;base64,AA">';
    expect(relativeLinksOf(html, 'index.html')).toBe('<link rel="stylesheet" href="highlight.css"><a href="c/one.html#t2">one</a><a href="#t3">here</a><img src="data:image/png;base64,AA">');
    expect(relativeLinksOf(html, 'c/one.html')).toBe('<link rel="stylesheet" href="../highlight.css"><a href="../c/one.html#t2">one</a><a href="#t3">here</a><img src="data:image/png;base64,AA">');
    expect(relativeLinksOf(html, 'b/x/two.html')).toContain(' href="../../highlight.css"');
  });

  it('refuses a page with a link that leaves the site, naming it', () => {
    expect(() => relativeLinksOf('<script src="https://cdn.invalid/x.js"></script>', 'c/one.html')).toThrow('c/one.html: a link leaves the site ( src="https://cdn.invalid/x.js"></script>)');
    expect(() => relativeLinksOf('<a href="//host/x">x</a>', 'index.html', '/tmp/site/index.html')).toThrow('/tmp/site/index.html: a link leaves the site');
  });

  it('rewrites a page read as Latin-1, one character per byte, to the same bytes as read as UTF-8', () => {
    // à is C3 A0 in UTF-8, and A0 read as Latin-1 is U+00A0, which \s would take for a space.
    const html = '<p>voilàhref="/x" déjà</p> <a href="/c/é.html">é</a><img src="/s/ü.png">';
    const asText = Buffer.from(relativeLinksOf(html, 'c/one.html'), 'utf8');
    const asBytes = Buffer.from(relativeLinksOf(Buffer.from(html, 'utf8').toString('latin1'), 'c/one.html'), 'latin1');
    expect(asBytes.equals(asText)).toBe(true);
    expect(asText.toString('utf8')).toBe('<p>voilàhref="/x" déjà</p> <a href="../c/é.html">é</a><img src="../s/ü.png">');
  });
});
