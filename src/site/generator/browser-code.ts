// The site's code for the browser's highlighter (browser-highlight.ts),
// made once when the renderer is made (kept-renderer.ts) and kept beside
// it; every site links it into its `code/` folder (site.ts). A function of
// the code and packages alone, as the renderer is.
//
// - `code/highlight.js`: the highlighter, bundled by esbuild as one classic
//   script with the table of what it knows: the languages' names, each
//   language's grammars, the themes.
// - `code/grammars/<name>.js`: each grammar shiki bundles, once, whichever
//   languages embed it, as zstd-compressed JSON in base64 that the script
//   hands to the highlighter. 260 grammars are 7.6 MB of JSON, which would
//   be a tenth of a site's bytes; compressed, they are 1.56 MB, a fifth.
// - `code/LICENSES.txt`: the licences of the packages bundled and of the
//   grammars, which ask to go with every copy.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LanguageRegistration } from 'shiki/core';
import { bundledLanguagesInfo } from 'shiki/langs';
import { zstd } from '../../files/zstd.ts';
import { grammarsOf, languageNames } from './grammars.ts';
import { loadThemes } from './highlight-style.ts';
import { licenceIn, packageFolder } from './package-files.ts';

/** The site's folder of the browser's highlighter, and the kept renderer's. */
export const BROWSER_CODE = 'code';

const GRAMMARS = 'grammars';

/** High, as it is paid once, when the renderer is made, and the grammars go with every site. */
const GRAMMAR_LEVEL = 19;

/** The packages whose code or data the folder holds, whose licences go with it. */
const LICENSED_PACKAGES = ['shiki', '@shikijs/core', '@shikijs/primitive', '@shikijs/engine-javascript', '@shikijs/langs', '@shikijs/themes', '@shikijs/vscode-textmate', 'oniguruma-to-es', 'regex', 'regex-recursion', 'regex-utilities', 'fzstd'];

/** Writes the browser's highlighter, its grammars and their licences into `folder`. */
export async function writeBrowserCode(folder: string): Promise<void> {
  const grammars = new Map<string, LanguageRegistration>();
  const languages: Record<string, string[]> = {};
  for (const { id } of bundledLanguagesInfo) {
    const own = await grammarsOf(id);
    languages[id] = own.map((grammar) => grammar.name);
    for (const grammar of own) grammars.set(grammar.name, grammar);
  }
  const files: Record<string, string> = {};
  const taken = new Set<string>();
  fs.mkdirSync(path.join(folder, GRAMMARS), { recursive: true });
  const context = new zstd.CCtx();
  for (const [name, grammar] of [...grammars].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const file = `${GRAMMARS}/${name.replace(/[^A-Za-z0-9-]/g, '_')}.js`;
    if (taken.has(file)) throw new Error(`the grammars ${name} and another would both be ${file}`);
    taken.add(file);
    files[name] = file;
    const json = Buffer.from(JSON.stringify(grammar));
    const compressed = Buffer.allocUnsafe(zstd.compressBound(json.length));
    const base64 = compressed.subarray(0, context.compress(compressed, json, GRAMMAR_LEVEL)).toString('base64');
    fs.writeFileSync(path.join(folder, file), `SESSIONIZER_GRAMMAR(${JSON.stringify(name)},"${base64}");\n`);
  }
  const table = { names: Object.fromEntries(languageNames()), languages, files, themes: await loadThemes() };
  const esbuild = await import('esbuild');
  const built = await esbuild.build({
    entryPoints: [fileURLToPath(new URL('./browser-highlight.ts', import.meta.url))],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    define: { SESSIONIZER_CODE_TABLE: JSON.stringify(table) },
    banner: { js: '/* Sessionizer\'s highlighter of the site\'s code; the licences of the code and grammars it bundles are in LICENSES.txt beside it. */' },
    write: false,
    logLevel: 'silent',
  });
  fs.writeFileSync(path.join(folder, 'highlight.js'), built.outputFiles[0]!.contents);
  fs.writeFileSync(path.join(folder, 'LICENSES.txt'), licences());
}

/** The licence file of each package the folder bundles, under its name. */
function licences(): string {
  const shiki = packageFolder('shiki');
  return LICENSED_PACKAGES.map((name) => {
    // Looked for from shiki's folder first: its own packages need not be the project's.
    const folder = (shiki !== undefined ? packageFolder(name, shiki) : undefined) ?? packageFolder(name);
    if (folder === undefined) throw new Error(`the package ${name}, whose code the browser's highlighter bundles, is not installed`);
    return `${name}\n\n${licenceIn(folder)}\n`;
  }).join('\n---\n\n');
}
