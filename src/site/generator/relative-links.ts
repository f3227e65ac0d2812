// Astro has no relative-links mode (astro#5435; research §4.3): anything it
// bundles is linked as `/_astro/...`, which from file:// or a sub-folder of a
// static host points outside the site. Every root-absolute `href`/`src` in a
// page is rewritten relative to the page; anything that would still leave
// the site (a scheme other than data:, `//host`) is refused, since no page
// makes a network request; but for an `href` to an http(s) address, a link
// in a transcript's text that the reader may choose to follow (markdown.ts
// makes no other; models/web-address.ts is the rule for both).
//
// The kept renderer makes each page's links relative as it renders the page
// (renderer-entry.mjs), in the child that renders it.

import fs from 'node:fs';
import path from 'node:path';
import { WEB_ADDRESS } from '../models/web-address.ts';

// A page is rewritten as the bytes Astro encoded, never decoded: several
// times cheaper than reading each page as Latin-1 text, rewriting it with a
// regular expression and encoding it again, with the same bytes out.
//
// A link is an `href` or `src` attribute after ASCII white space (HTML's,
// not \s, which also takes U+00A0): no byte of a UTF-8 character beyond
// ASCII is a quote, a space or a letter of these names, so the bytes are
// searched as they are.

const EQUALS_QUOTE = Buffer.from('="');
const QUOTE = 0x22;
const SLASH = 0x2f;
const LINK_ATTRIBUTES = ['href', 'src'];
// What makes a link leave the site: a scheme other than data:, or `//host`.
const REMOTE = /^(?!data:)(?:[a-z][a-z0-9+.-]*:|\/\/)/i;
// The most of a link's value REMOTE needs to see.
const SCHEME_BYTES = 64;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d;
}

/** Whether the attribute starting at `start` is on an `<a>` element, the only one a reader follows rather than the page fetching it. */
function isAnchor(bytes: Buffer, start: number): boolean {
  const open = bytes.lastIndexOf(0x3c, start);
  return open >= 0 && bytes[open + 1] === 0x61 && isSpace(bytes[open + 2]) && bytes.subarray(open, start).indexOf(0x3e) < 0;
}

/**
 * Whether the `="` at `at` ends a link attribute's name: 'lower case' for
 * `href` or `src` as written by the site, 'any case' for those names in
 * other letters, which are checked for leaving the site but left as they are.
 */
function linkAttributeBefore(bytes: Buffer, at: number): { case: 'lower case' | 'any case'; start: number } | undefined {
  for (const name of LINK_ATTRIBUTES) {
    const start = at - name.length;
    if (start < 1 || !isSpace(bytes[start - 1])) continue;
    let lower = true;
    let any = true;
    for (let index = 0; index < name.length; index++) {
      const byte = bytes[start + index]!;
      if (byte !== name.charCodeAt(index)) lower = false;
      if ((byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte) !== name.charCodeAt(index)) any = false;
    }
    if (lower || any) return { case: lower ? 'lower case' : 'any case', start: start - 1 };
  }
  return undefined;
}

/**
 * The page `file` (from the site root, with forward slashes) with its
 * root-absolute links made relative to it; throws naming `where` for a link
 * that leaves the site. `page` is returned as it is when nothing changes.
 */
export function relativeLinksOf(page: Uint8Array, file: string, where = file): Buffer {
  const bytes = Buffer.isBuffer(page) ? page : Buffer.from(page.buffer, page.byteOffset, page.byteLength);
  const up = Buffer.from('../'.repeat(file.split('/').length - 1));
  const pieces: Buffer[] = [];
  let copied = 0;
  for (let at = bytes.indexOf(EQUALS_QUOTE); at >= 0; at = bytes.indexOf(EQUALS_QUOTE, at + 2)) {
    const attribute = linkAttributeBefore(bytes, at);
    if (attribute === undefined) continue;
    let value = at + 2;
    const end = bytes.indexOf(QUOTE, value);
    if (attribute.case === 'lower case' && bytes[value] === SLASH && bytes[value + 1] !== SLASH && end >= 0) {
      pieces.push(bytes.subarray(copied, value), up);
      copied = value + 1;
      // What the link says once relative, for a page at the root: `/x:` becomes `x:`.
      if (up.length > 0) {
        at = end - 1;
        continue;
      }
      value++;
    }
    const start = bytes.toString('latin1', value, Math.min(bytes.length, value + SCHEME_BYTES));
    const followed = attribute.case === 'lower case' && at - attribute.start - 1 === 'href'.length && isAnchor(bytes, attribute.start) && WEB_ADDRESS.test(start);
    if (!followed && REMOTE.test(start)) {
      throw new Error(`${where}: a link leaves the site (${bytes.toString('utf8', attribute.start, Math.min(bytes.length, attribute.start + 80))})`);
    }
  }
  if (pieces.length === 0) return bytes;
  pieces.push(bytes.subarray(copied));
  return Buffer.concat(pieces);
}

/** Every HTML page under `site` but those `leaveOut` names, in name order, with its size in bytes: by `measure`, or as it is on the disk. */
export function pagesUnder(site: string, measure = (full: string, _file: string): number => fs.statSync(full).size, leaveOut: ReadonlySet<string> = new Set()): { file: string; bytes: number }[] {
  const pages: { file: string; bytes: number }[] = [];
  // Each name is made from its folder's as the walk goes: a site has thousands of pages.
  const visit = (folder: string, under: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const file = `${under}${entry.name}`;
      if (entry.isDirectory()) visit(path.join(folder, entry.name), `${file}/`);
      else if (entry.name.endsWith('.html') && !leaveOut.has(file)) pages.push({ file, bytes: measure(path.join(folder, entry.name), file) });
    }
  };
  visit(site, '');
  return pages;
}
