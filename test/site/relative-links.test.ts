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
});
