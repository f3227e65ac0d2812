// The command's own code as one bundled module, kept between runs for the
// source it was built from. Loading the TypeScript through tsx delays every
// command before it does anything: tsx starts a loader thread and every
// module of src/ then passes through it. From the bundle, Node loads one
// module of plain JavaScript.
//
// The bundle is made by esbuild from src/cli/main.ts the first time the
// source is seen, like the site's kept renderer (site/generator/site.ts): its
// folder is named by a digest of every file under src/, so an edit is a new
// bundle and a bundle never drifts from the source. Packages stay outside it
// and load as they always do. Each module's `import.meta.url` is the URL of its
// source file, so that the files found beside the source (worker entry points,
// rules, the site's scripts and the repository) are found as before.
//
// Anything that goes wrong here leaves the command to tsx, which always works.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SOURCE = fileURLToPath(new URL('../', import.meta.url));
export const KEPT_COMMANDS = fileURLToPath(new URL('../../node_modules/.cache/sessionizer-command', import.meta.url));
/** The worker threads' modules, by the name work-on-cores.ts's workerModule gives each in the bundle. */
const WORKERS = {
  'collection-worker': path.join(SOURCE, 'collection', 'worker.ts'),
  'parse-worker': path.join(SOURCE, 'parse', 'worker.ts'),
  'archive-worker': path.join(SOURCE, 'bundle', 'archive-worker.ts'),
  'evidence-worker': path.join(SOURCE, 'site', 'generator', 'evidence-worker.ts'),
};
/** How many bundles of other sources are kept beside the current one, the most recently built. */
const OTHERS_KEPT = 3;

/** The command table's module from the bundle kept for this source, built now if there is none; undefined when it cannot be. */
export async function keptCommand() {
  try {
    const folder = path.join(KEPT_COMMANDS, sourceDigest());
    if (!fs.existsSync(path.join(folder, 'main.js'))) await build(folder);
    return await import(pathToFileURL(path.join(folder, 'main.js')).href);
  } catch {
    return undefined;
  }
}

/**
 * A digest of every file under `source` and of where it is: what the bundle
 * is made from. The bundle names its modules' source files and its own
 * folder by path (sourceUrls, KEPT_COMMAND_FOLDER), so a copy of the
 * project that kept its node_modules, or a second checkout sharing them,
 * builds a bundle of its own rather than running one that reads files
 * beside another copy's source.
 */
export function sourceDigest(source = SOURCE) {
  const hash = crypto.createHash('sha256').update(`${pathToFileURL(source).href}\n`);
  const files = fs
    .readdirSync(source, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) hash.update(`${path.relative(source, file)}\n`).update(fs.readFileSync(file));
  return hash.digest('hex').slice(0, 32);
}

/** Builds the bundle into a folder of its own and renames it into place; another process may have placed the same one first. */
async function build(folder) {
  const esbuild = await import('esbuild');
  fs.mkdirSync(KEPT_COMMANDS, { recursive: true });
  const building = fs.mkdtempSync(path.join(KEPT_COMMANDS, `building-${process.pid}-`));
  try {
    await esbuild.build({
      // The modules of worker threads are built too, so that a worker of the
      // bundled command runs with no TypeScript loader (cores/work-on-cores.ts),
      // which each worker would otherwise start for itself.
      entryPoints: { main: path.join(SOURCE, 'cli', 'main.ts'), ...WORKERS },
      define: { KEPT_COMMAND_FOLDER: JSON.stringify(pathToFileURL(folder).href + '/') },
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      // The site stage stays a chunk of its own, loaded only by an export
      // that builds a site, as it is a dynamic import in the source.
      splitting: true,
      outdir: building,
      logLevel: 'silent',
      plugins: [sourceUrls],
    });
    try {
      fs.renameSync(building, folder);
    } catch (error) {
      if (!fs.existsSync(path.join(folder, 'main.js'))) throw error;
    }
  } finally {
    fs.rmSync(building, { recursive: true, force: true });
  }
  removeOlderBundles(path.basename(folder));
}

/** Gives every module the URL of its own source file as `import.meta.url`, rather than the bundle's. */
const sourceUrls = {
  name: 'source-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (arguments_) => ({
      contents: fs.readFileSync(arguments_.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(arguments_.path).href)),
      loader: 'ts',
    }));
  },
};

/** Bundles of earlier sources, but the few most recent, and the folders of builds whose process ended. */
function removeOlderBundles(current) {
  const others = [];
  for (const name of fs.readdirSync(KEPT_COMMANDS)) {
    const building = /^building-(\d+)-/.exec(name);
    if (building) {
      if (hasEnded(Number(building[1]))) fs.rmSync(path.join(KEPT_COMMANDS, name), { recursive: true, force: true });
    } else if (name !== current) others.push({ name, time: fs.statSync(path.join(KEPT_COMMANDS, name)).mtimeMs });
  }
  others.sort((a, b) => b.time - a.time);
  for (const { name } of others.slice(OTHERS_KEPT)) fs.rmSync(path.join(KEPT_COMMANDS, name), { recursive: true, force: true });
}

/** Whether process `pid` has ended; files/process.ts says the same for the TypeScript, which this file runs before. */
function hasEnded(pid) {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return error.code === 'ESRCH';
  }
}
