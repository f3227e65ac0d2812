// Astro has no relative-links mode (astro#5435; research §4.3): anything it
// bundles is linked as `/_astro/...`, which from file:// or a sub-folder of a
// static host points outside the site. Every root-absolute `href`/`src` in a
// page is rewritten relative to the page; anything that would still leave
// the site (a scheme other than data:, `//host`) is refused, since no page
// makes a network request.

import fs from 'node:fs';
import path from 'node:path';

const ROOT_ABSOLUTE = /(\s(?:href|src)=")\/(?!\/)([^"]*)"/g;
const REMOTE = /\s(?:href|src)="(?!data:)(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** Rewrites every HTML page under `site`; returns each page with its size in bytes. */
export function relativeLinks(site: string): { file: string; bytes: number }[] {
  const pages: { file: string; bytes: number }[] = [];
  const visit = (folder: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith('.html')) {
        const relative = path.relative(site, full).split(path.sep).join('/');
        const up = '../'.repeat(relative.split('/').length - 1);
        const before = fs.readFileSync(full, 'utf8');
        const after = before.replace(ROOT_ABSOLUTE, (_, attribute: string, rest: string) => `${attribute}${up}${rest}"`);
        const remote = REMOTE.exec(after);
        if (remote) throw new Error(`${full}: a link leaves the site (${after.slice(remote.index, remote.index + 80)})`);
        if (after !== before) fs.writeFileSync(full, after);
        pages.push({ file: relative, bytes: Buffer.byteLength(after) });
      }
    }
  };
  visit(site);
  return pages;
}
