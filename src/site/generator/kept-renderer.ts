// The kept renderer: the server chunks of an Astro build (astro.config.mjs),
// kept for the code that made them under the build roots, inside
// node_modules, since its chunks import astro and react from the project. It
// is a function of the code alone, like the key of finished pages, and only
// the current code's is kept. render.mjs renders pages with it, in a child
// with no Astro build (site.ts).

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listFolder } from '../../files/folders.ts';
import { BROWSER_CODE, writeBrowserCode } from './browser-code.ts';

/** Where the site's builds run and the renderer is kept, when this user may write there (siteBuildRoots), unless a caller names another folder (SiteOptions.buildRoots). */
export const BUILD_ROOTS = fileURLToPath(new URL('../../../node_modules/.cache/sessionizer-site', import.meta.url));

const REPOSITORY = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Where the site's builds run and its renderer is kept: BUILD_ROOTS, in the
 * checkout's node_modules, when this user may write there. Otherwise (a
 * checkout of another user's, a read-only file system) a folder of this
 * user's own under the system's temporary folder, one per checkout, whose
 * `node_modules` links to the checkout's, so that the builds and the
 * renderer resolve astro and the site's packages from the project as they
 * do from BUILD_ROOTS. A folder of that name that is not this user's alone
 * is left alone, and a new private one is made instead.
 */
export function siteBuildRoots(): string {
  if (writableFolder(BUILD_ROOTS)) return BUILD_ROOTS;
  const user = process.getuid?.() ?? os.userInfo().username;
  const checkout = crypto.createHash('sha256').update(REPOSITORY).digest('hex').slice(0, 12);
  const own = path.join(os.tmpdir(), `sessionizer-site-${user}-${checkout}`);
  try {
    fs.mkdirSync(own, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const roots = privateFolder(own) ? own : fs.mkdtempSync(`${own}-`);
  const link = path.join(roots, 'node_modules');
  if (!fs.existsSync(link)) {
    try {
      fs.symlinkSync(path.join(REPOSITORY, 'node_modules'), link, 'dir');
    } catch (error) {
      // Another export of this user's linked it first.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return roots;
}

/** Whether this process can make `folder` (when it is not there) and write in it. */
function writableFolder(folder: string): boolean {
  try {
    fs.mkdirSync(folder, { recursive: true });
    fs.accessSync(folder, fs.constants.W_OK | fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether `folder` is a folder (not a link to one) of this user's that no one else may read or write. */
function privateFolder(folder: string): boolean {
  const stat = fs.lstatSync(folder);
  return stat.isDirectory() && (process.getuid === undefined || stat.uid === process.getuid()) && (stat.mode & 0o077) === 0;
}

function rendererFolder(code: string, roots: string): string {
  return path.join(roots, `renderer-${code.slice(0, 32)}`);
}

/** The folder beside a kept renderer's entry point of the browser's highlighter and its grammars, which every site links in (browser-code.ts). */
export function browserCodeBeside(entry: string): string {
  return path.join(path.dirname(entry), BROWSER_CODE);
}

/** The entry point of the renderer kept for `code`, when there is one. */
export function keptRenderer(code: string, roots: string): string | undefined {
  const entry = path.join(rendererFolder(code, roots), 'entry.mjs');
  return fs.existsSync(entry) ? entry : undefined;
}

/**
 * Keeps a build's server chunks as the renderer of `code`, in place of any
 * other code's: bundled with the packages they import (bundledRenderer),
 * or as they are should that fail, with the browser's highlighter
 * (browser-code.ts).
 */
export async function keepRenderer(server: string, code: string, roots: string): Promise<void> {
  const folder = rendererFolder(code, roots);
  if (!fs.existsSync(path.join(server, 'entry.mjs')) || fs.existsSync(folder)) return;
  const bundled = await bundledRenderer(server);
  await writeBrowserCode(path.join(bundled ?? server, BROWSER_CODE));
  // Renamed whole into place, so that a renderer is never seen half there;
  // an export running at once may have placed the same one first.
  try {
    fs.renameSync(bundled ?? server, folder);
  } catch (error) {
    if (!['EEXIST', 'ENOTEMPTY'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
  forgetKeptRenderers(roots, folder);
}

/**
 * The server chunks bundled by esbuild with the packages they import
 * (Astro's runtime, markdown-it), in a folder beside them; undefined
 * when that fails. A renderer child loads one module and its chunks rather
 * than many files resolved through node_modules, which makes its import
 * much shorter (bench/results/measurements-behind-choices.md), and a child that renders the pages of
 * one changed conversation spends most of its time loading.
 * The renderer always runs with NODE_ENV production (child.ts), so the
 * bundle is made for it alone.
 */
async function bundledRenderer(server: string): Promise<string | undefined> {
  const out = `${server}-bundled`;
  try {
    const esbuild = await import('esbuild');
    await esbuild.build({
      entryPoints: { entry: path.join(server, 'entry.mjs') },
      bundle: true,
      // Astro's manifest imports each page and its middleware when a request
      // first needs them: split, they stay chunks of their own.
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      outdir: out,
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunks/[name]-[hash]',
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    return out;
  } catch {
    fs.rmSync(out, { recursive: true, force: true });
    return undefined;
  }
}

/** Removes the renderers kept under `roots` but `keep`: what a fresh clone has, when nothing is kept. */
export function forgetKeptRenderers(roots = BUILD_ROOTS, keep?: string): void {
  for (const name of listFolder(roots)) if (name.startsWith('renderer-') && path.join(roots, name) !== keep) fs.rmSync(path.join(roots, name), { recursive: true, force: true });
}

/** A digest of everything a page's bytes can depend on besides its bundle: the code and packages that render it. */
export function siteCode(): string {
  const hash = crypto.createHash('sha256');
  const repository = fileURLToPath(new URL('../../..', import.meta.url));
  const files = [...['src', 'public'].flatMap((folder) => filesUnder(path.join(repository, folder))), path.join(repository, 'astro.config.mjs'), path.join(repository, 'package-lock.json')].sort();
  for (const file of files) hash.update(`${path.relative(repository, file)}\n`).update(fs.readFileSync(file));
  return hash.digest('hex');
}

/** Every file under a folder, at any depth. */
export function filesUnder(folder: string): string[] {
  return fs.readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}
