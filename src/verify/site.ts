// With `deep`, an export's site is proved as its derived files are: it is
// rendered again from the bundle alone and compared with the site the export
// holds, file by file, by size and SHA-256. The site is a function of the
// bundle (DESIGN.md: the same bundle gives the same site bytes, with or
// without any cache), so a page rewritten, added or removed, or a script or
// style sheet changed, is named here even with the manifest and the root
// digest made anew.
//
// The rendering trusts no cache of the export it checks, since a cache could
// itself be forged: it writes into a private temporary folder, with a
// site cache of its own there, and never looks for finished pages (the
// cache of those lives beside the storage zone the export came from). What
// it reuses is the tool's own renderer, kept under node_modules for this exact
// site code (site/generator/kept-renderer.ts): code, which renders the pages
// every export renders.
//
// What is proved is that the site is what this build renders from the
// bundle: a site rendered by another version of the site's code differs
// wherever that code renders differently.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUNDLE, compareBytes, exportFiles, SITE } from '../bundle/manifest.ts';
import { BufferPool } from '../files/buffer-pool.ts';
import { digestOfFile } from '../files/digest.ts';
import type { PresentFile } from './export.ts';
import type { Problem } from './storage.ts';

export interface SiteCheck {
  /** The site's files rendered again and compared; 0 when the export holds no site, or it could not be rendered. */
  readonly files: number;
  readonly problems: Problem[];
  readonly notes: Problem[];
}

/**
 * A private temporary folder (mode 0700) for `use`, removed with everything
 * in it once `use` settles, whatever it did.
 */
export async function inScratchFolder<Result>(use: (folder: string) => Promise<Result>): Promise<Result> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sessionizer-verify-'));
  try {
    return await use(folder);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Renders the site of `bundle` again into `scratch` (an empty private folder)
 * and compares it with the export's site files in `present` (every file
 * found in the export, by path from its top, with its size and SHA-256).
 * Names every file that differs, every file the bundle renders and the export
 * lacks, and every file the export holds under site/ that the bundle does not
 * render. An export that holds no site at all has nothing to compare, which
 * is a note.
 */
export async function checkSite(bundle: string, present: ReadonlyMap<string, PresentFile>, scratch: string): Promise<SiteCheck> {
  const held = new Map([...present].filter(([relative]) => relative.startsWith(`${SITE}/`)));
  if (held.size === 0) return { files: 0, problems: [], notes: [{ path: SITE, what: 'the export holds no site, so no page was rendered again to compare' }] };
  const out = path.join(scratch, SITE);
  try {
    // Loaded here, not at the top: Astro and shiki would otherwise load with every verify.
    const { buildSite } = await import('../site/generator/site.ts');
    await buildSite(bundle, out, path.join(scratch, 'site-cache'));
  } catch (error) {
    return { files: 0, problems: [{ path: SITE, what: `the site could not be rendered again from the bundle to compare: ${oneLine((error as Error).message, bundle)}` }], notes: [] };
  }
  const buffers = new BufferPool();
  const rendered = new Map<string, PresentFile>(exportFiles(out).files.map((file) => [`${SITE}/${file}`, { size: fs.statSync(path.join(out, file)).size, sha256: digestOfFile(path.join(out, file), buffers) }] as const));
  const problems: Problem[] = [];
  for (const relative of [...new Set([...rendered.keys(), ...held.keys()])].sort(compareBytes)) {
    const expected = rendered.get(relative);
    const found = held.get(relative);
    if (expected === undefined) problems.push({ path: relative, what: 'the bundle renders no such file: the site holds what its bundle does not say' });
    else if (found === undefined) problems.push({ path: relative, what: `missing: the bundle renders it (${expected.size} bytes, sha256 ${expected.sha256})` });
    else if (found.sha256 !== expected.sha256) problems.push({ path: relative, what: `not what the bundle renders: its SHA-256 is ${found.sha256} (${found.size} bytes), the bundle renders ${expected.sha256} (${expected.size} bytes)` });
  }
  return { files: rendered.size, problems, notes: [] };
}

/**
 * What a failure to render says, on one line: a site child's failure carries
 * its output, in which the error's own line says what went wrong; the bundle
 * is named as it is in the export, not by where it was rendered from.
 */
function oneLine(message: string, bundle: string): string {
  const lines = message.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const error = lines.find((line) => ERROR_LINE.test(line));
  return (error?.replace(ERROR_LINE, '') ?? lines[0] ?? '').replaceAll(`${bundle}${path.sep}`, `${BUNDLE}/`);
}

const ERROR_LINE = /^[A-Za-z]*Error: /;
