// Astro has no relative-links mode (astro#5435; research §4.3): anything it
// bundles is linked as `/_astro/...`, which from file:// or a sub-folder of a
// static host points outside the site. Every root-absolute `href`/`src` in a
// page is rewritten relative to the page; anything that would still leave
// the site (a scheme other than data:, `//host`) is refused, since no page
// makes a network request.
//
// The kept renderer makes each page's links relative as it renders the page
// (renderer-entry.mjs), in the child that renders it; only the pages of an
// Astro build, which writes them itself, are rewritten afterwards, in the
// export's process. Read back and rewritten there, the 473 pages (170 MB) of
// the 200 MB benchmark corpus took 1.85 s after the children were done.

import fs from 'node:fs';
import path from 'node:path';

// Attributes are separated by ASCII white space (HTML's, not \s, which also
// takes U+00A0): so a page read as Latin-1, one character per byte, is
// rewritten exactly as read as UTF-8, since no byte of a character beyond
// ASCII is a quote, a space or a letter of these names.
const ROOT_ABSOLUTE = /([ \t\n\f\r](?:href|src)=")\/(?!\/)([^"]*)"/g;
const REMOTE = /[ \t\n\f\r](?:href|src)="(?!data:)(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** The HTML of the page `file` (from the site root, with forward slashes) with its links relative to it; throws naming `where` for a link that leaves the site. */
export function relativeLinksOf(html: string, file: string, where = file): string {
  const up = '../'.repeat(file.split('/').length - 1);
  const relative = html.replace(ROOT_ABSOLUTE, (_, attribute: string, rest: string) => `${attribute}${up}${rest}"`);
  const remote = REMOTE.exec(relative);
  if (remote) throw new Error(`${where}: a link leaves the site (${relative.slice(remote.index, remote.index + 80)})`);
  return relative;
}

/** Rewrites every HTML page under `site`, as an Astro build wrote it; returns each page with its size in bytes. */
export function relativeLinks(site: string): { file: string; bytes: number }[] {
  return pagesUnder(site, (full, file) => {
    const before = fs.readFileSync(full, 'utf8');
    const after = relativeLinksOf(before, file, full);
    if (after !== before) fs.writeFileSync(full, after);
    return Buffer.byteLength(after);
  });
}

/** Every HTML page under `site`, in name order, with its size in bytes: by `measure`, or as it is on the disk. */
export function pagesUnder(site: string, measure = (full: string, _file: string): number => fs.statSync(full).size): { file: string; bytes: number }[] {
  const pages: { file: string; bytes: number }[] = [];
  const visit = (folder: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith('.html')) {
        const file = path.relative(site, full).split(path.sep).join('/');
        pages.push({ file, bytes: measure(full, file) });
      }
    }
  };
  visit(site);
  return pages;
}
