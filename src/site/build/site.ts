// The site stage of an export: from `<export>/bundle` only, into `<export>/site`.
//
// 1. run Astro's build with a throwaway root under node_modules, so its
//    `.astro` folder and vite cache never land in the repository or the export;
//    Pages highlight their code as they render, through a cache on disk
//    (a second export of the same conversations highlights nothing);
// 2. write the highlight style sheet and make every link relative, since
//    Astro emits `/_astro/...` and file:// has no server root.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CACHE_VARIABLE } from '../data/highlighted.ts';
import { BUNDLE_VARIABLE } from '../data/site.ts';
import { createHighlighter } from './highlight.ts';
import { relativeLinks } from './relative-links.ts';

export interface SiteResult {
  readonly pages: number;
  /** Code blocks highlighted by this build; the others came from the cache or stayed plain. */
  readonly highlighted: number;
  readonly largestPage: { readonly file: string; readonly bytes: number };
  readonly milliseconds: number;
}

const CONFIG = fileURLToPath(new URL('../../../astro.config.mjs', import.meta.url));
const BUILD_ROOTS = fileURLToPath(new URL('../../../node_modules/.cache/sessionizer-site/', import.meta.url));

export async function buildSite(bundle: string, out: string, cache: string): Promise<SiteResult> {
  const started = performance.now();
  const entriesBefore = cacheEntries(cache);
  // Inside node_modules, so that the build resolves astro and react from the
  // project, yet outside what git tracks; removed after the build.
  fs.mkdirSync(BUILD_ROOTS, { recursive: true });
  const root = fs.mkdtempSync(path.join(BUILD_ROOTS, 'astro-'));
  const saved = { bundle: process.env[BUNDLE_VARIABLE], cache: process.env[CACHE_VARIABLE], telemetry: process.env.ASTRO_TELEMETRY_DISABLED };
  process.env[BUNDLE_VARIABLE] = path.resolve(bundle);
  process.env[CACHE_VARIABLE] = path.resolve(cache);
  // Astro's telemetry would make a network request; a build makes none.
  process.env.ASTRO_TELEMETRY_DISABLED = '1';
  // Astro writes its server-side chunks inside the working folder when the
  // output is outside it, and into the output otherwise; from the throwaway
  // root they import react and astro from the project and leave no trace.
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const { build } = await import('astro');
    // Astro joins the config file to the root, so it is given relative to it.
    await build({ root, configFile: path.relative(root, CONFIG), outDir: path.resolve(out), cacheDir: path.join(root, 'cache'), logLevel: 'error', mode: 'production' });
  } finally {
    process.chdir(cwd);
    restore(BUNDLE_VARIABLE, saved.bundle);
    restore(CACHE_VARIABLE, saved.cache);
    restore('ASTRO_TELEMETRY_DISABLED', saved.telemetry);
    fs.rmSync(root, { recursive: true, force: true });
  }
  removeBuildLeftovers(out);
  const highlighterForCss = await createHighlighter(cache);
  fs.writeFileSync(path.join(out, 'highlight.css'), highlighterForCss.styleSheet());
  highlighterForCss.dispose();
  const pages = relativeLinks(out);
  let largestPage = { file: '', bytes: 0 };
  for (const page of pages) if (page.bytes > largestPage.bytes) largestPage = page;
  return { pages: pages.length, highlighted: cacheEntries(cache) - entriesBefore, largestPage, milliseconds: performance.now() - started };
}

/**
 * Astro leaves module stubs of its content layer (`content-assets.mjs`,
 * `content-modules.mjs`) beside the pages, and the React renderer's client
 * chunk under `_astro/` although no page hydrates anything. Neither is part
 * of the site, and every file of an export is listed in its manifest.
 */
function removeBuildLeftovers(out: string): void {
  for (const name of fs.readdirSync(out)) if (name.endsWith('.mjs')) fs.rmSync(path.join(out, name));
  const assets = path.join(out, '_astro');
  if (!fs.existsSync(assets)) return;
  const used = new Set<string>();
  const visit = (folder: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith('.html')) for (const match of fs.readFileSync(full, 'utf8').matchAll(/_astro\/([^"'\s)]+)/g)) used.add(match[1]!);
    }
  };
  visit(out);
  for (const name of fs.readdirSync(assets)) if (!used.has(name)) fs.rmSync(path.join(assets, name));
  if (fs.readdirSync(assets).length === 0) fs.rmdirSync(assets);
}

function cacheEntries(cache: string): number {
  if (!fs.existsSync(cache)) return 0;
  return fs.readdirSync(cache, { recursive: true }).filter((name) => String(name).endsWith('.html')).length;
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
