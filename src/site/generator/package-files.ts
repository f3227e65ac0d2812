// The files of a package whose code the site carries to the browser (the
// evidence pages' zstd decoder, the browser's highlighter of code): where
// the package is, and its licence, which asks to go with every copy.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));

/**
 * The folder of the package `name` as a module in `from` (this folder, by
 * default) finds it, through the `node_modules` folders above it; undefined
 * when none holds it.
 */
export function packageFolder(name: string, from = HERE): string | undefined {
  for (let folder = from; ; folder = path.dirname(folder)) {
    const candidate = path.join(folder, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(folder) === folder) return undefined;
  }
}

/** The text of the licence file of the package in `folder`, trimmed. */
export function licenceIn(folder: string): string {
  const licence = fs.readdirSync(folder).find((file) => /^licen[cs]e/i.test(file));
  if (licence === undefined) throw new Error(`${folder}: a package with no licence file, whose code the site would carry`);
  return fs.readFileSync(path.join(folder, licence), 'utf8').trim();
}
