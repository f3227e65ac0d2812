// Links made relative to their page, so that a site opens from file:// and
// from any folder of a static host; a page that would reach outside the site
// is refused.

import { describe, expect, it } from 'vitest';
import { relativeLinksOf } from '../../src/site/generator/relative-links.ts';

/** relativeLinksOf on the UTF-8 of `html`, read back as text. */
function relative(html: string, file: string, where?: string): string {
  return relativeLinksOf(Buffer.from(html, 'utf8'), file, where).toString('utf8');
}

describe('relative links', () => {
  it('point from each page to the site root, whatever its depth, and leave other links alone', () => {
    const html = '<link rel="stylesheet" href="/highlight.css"><a href="/c/one.html#t2">one</a><a href="#t3">here</a><img src="data:image/png;base64,AA">';
    expect(relative(html, 'index.html')).toBe('<link rel="stylesheet" href="highlight.css"><a href="c/one.html#t2">one</a><a href="#t3">here</a><img src="data:image/png;base64,AA">');
    expect(relative(html, 'c/one.html')).toBe('<link rel="stylesheet" href="../highlight.css"><a href="../c/one.html#t2">one</a><a href="#t3">here</a><img src="data:image/png;base64,AA">');
    expect(relative(html, 'b/x/two.html')).toContain(' href="../../highlight.css"');
  });

  it('refuses a page with a link that leaves the site, naming it', () => {
    expect(() => relative('<script src="https://cdn.invalid/x.js"></script>', 'c/one.html')).toThrow('c/one.html: a link leaves the site ( src="https://cdn.invalid/x.js"></script>)');
    expect(() => relative('<a href="//host/x">x</a>', 'index.html', '/tmp/site/index.html')).toThrow('/tmp/site/index.html: a link leaves the site');
    // In any case of the attribute and the scheme, after any of HTML's white space.
    expect(() => relative('<a\nHREF="HTTP://host/x">x</a>', 'c/one.html')).toThrow('c/one.html: a link leaves the site');
    // A root-absolute link of a page at the root that would read as a scheme once relative.
    expect(() => relative('<a href="/mailto:someone">x</a>', 'index.html')).toThrow('index.html: a link leaves the site');
    expect(relative('<a href="/mailto:someone">x</a>', 'c/one.html')).toBe('<a href="../mailto:someone">x</a>');
  });

  it('keeps a link to a web address a reader may follow, and refuses anything a page would fetch from one', () => {
    const html = '<a href="https://example.invalid/docs" rel="noopener noreferrer nofollow">docs</a> <a href="http://example.invalid/">x</a>';
    expect(relative(html, 'c/one.html')).toBe(html);
    expect(() => relative('<img src="https://remote.invalid/p.png">', 'c/one.html')).toThrow('c/one.html: a link leaves the site');
    expect(() => relative('<link rel="stylesheet" href="https://remote.invalid/x.css">', 'c/one.html')).toThrow('c/one.html: a link leaves the site');
    expect(() => relative('<area href="https://remote.invalid/">', 'c/one.html')).toThrow('c/one.html: a link leaves the site');
    expect(() => relative('<a data-href="https://x.invalid" href="ftp://x.invalid/">x</a>', 'c/one.html')).toThrow('c/one.html: a link leaves the site');
  });

  it('reads the bytes of characters beyond ASCII as they are', () => {
    // à is C3 A0 in UTF-8, and U+00A0 is white space to \s but not to HTML.
    const html = '<p>voilàhref="/x" déjà</p> <a href="/c/é.html">é</a><img src="/s/ü.png"><a title="x" class="y">z</a>';
    expect(relative(html, 'c/one.html')).toBe('<p>voilàhref="/x" déjà</p> <a href="../c/é.html">é</a><img src="../s/ü.png"><a title="x" class="y">z</a>');
  });

  it('gives a page with nothing to rewrite back as it is', () => {
    const page = Buffer.from('<a href="#t1">here</a><a title="/x" data-src="/y">z</a>');
    expect(relativeLinksOf(page, 'c/one.html')).toBe(page);
  });
});
