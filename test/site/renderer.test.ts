// The kept renderer: the pages' code bundled with an on-demand route, made
// by an Astro build of no page, with which every page is rendered. It must
// be made first when none is kept, for one child or several, render the
// same bytes every time, and, when it fails, be made again once rather than
// fail the site.

import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { BUILD_ROOTS, filesUnder } from '../../src/site/generator/kept-renderer.ts';
import { buildSite, prepareRenderer } from '../../src/site/generator/site.ts';
import { expectSameFiles, exportedSessions, filesOf, temporaryFolder } from '../helpers.ts';

// Build roots of this test's own, inside node_modules like the default one,
// so that no other test's builds keep or use the renderers it checks.
const ownRoots: string[] = [];
function buildRoots(): string {
  fs.mkdirSync(BUILD_ROOTS, { recursive: true });
  const roots = fs.mkdtempSync(path.join(BUILD_ROOTS, 'test-renderer-'));
  ownRoots.push(roots);
  return roots;
}
afterAll(() => {
  for (const roots of ownRoots) fs.rmSync(roots, { recursive: true, force: true });
});

/** What the modules under `folder` import or require that is neither one of its files nor Node's own. */
function packagesImportedBy(folder: string): string[] {
  const named = new Set<string>();
  for (const file of filesUnder(folder).filter((name) => name.endsWith('.mjs'))) {
    // Comments left out: a package's documentation names itself in examples (` * import MarkdownIt from 'markdown-it'`).
    const code = fs.readFileSync(file, 'utf8').replace(/^\s*(?:\/\/|\/?\*).*$/gm, '');
    for (const [, specifier] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["'](@?[\w.-]+(?:\/[\w.@-]+)*)["']/g)) {
      if (!specifier!.startsWith('.') && !isBuiltin(specifier!)) named.add(specifier!);
    }
  }
  return [...named].sort();
}

function keptRenderers(roots: string): string[] {
  return fs.readdirSync(roots).filter((name) => name.startsWith('renderer-')).map((name) => path.join(roots, name));
}

describe('the kept renderer', () => {
  it('is made first when none is kept, renders the same bytes every time, for one child or several, and is made again once when it fails', { timeout: 480_000 }, async () => {
    const bundle = path.join(await exportedSessions([FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.bareStringResult, FIXTURE_SESSIONS.nestedAgents, FIXTURE_SESSIONS.compaction]), 'bundle');
    const folder = temporaryFolder({ forFile: true });
    const site = (name: string, options: Parameters<typeof buildSite>[3]) => buildSite(bundle, path.join(folder, name), path.join(folder, `cache-${name}`), options);

    const roots = buildRoots();
    const first = await site('first', { buildRoots: roots, builds: 1 });
    expect(first.built).toBe(first.pages);
    const reference = filesOf(path.join(folder, 'first'));
    const [kept] = keptRenderers(roots);
    expect(fs.existsSync(path.join(kept!, 'entry.mjs'))).toBe(true);
    // Bundled with the packages its chunks import, so that a child loads
    // none of them through node_modules (kept-renderer.ts, bundledRenderer).
    expect(packagesImportedBy(kept!)).toEqual([]);

    const rendered = await site('rendered', { buildRoots: roots, builds: 1 });
    expect(rendered.built).toBe(first.built);
    expect(keptRenderers(roots)).toEqual([kept]);
    expectSameFiles(filesOf(path.join(folder, 'rendered')), reference);

    // Shared between children with no renderer kept: it is made once, and
    // all the children render with it.
    const sharedRoots = buildRoots();
    await site('shared', { buildRoots: sharedRoots, builds: 3 });
    expect(keptRenderers(sharedRoots)).toHaveLength(1);
    expectSameFiles(filesOf(path.join(folder, 'shared')), reference);

    // A renderer that no longer runs is made again, and renders the pages.
    fs.chmodSync(path.join(kept!, 'entry.mjs'), 0o644);
    fs.writeFileSync(path.join(kept!, 'entry.mjs'), 'throw new Error("a damaged renderer");\n');
    await site('made-again', { buildRoots: roots, builds: 1 });
    expectSameFiles(filesOf(path.join(folder, 'made-again')), reference);
    expect(keptRenderers(roots)).toHaveLength(1);
    expect(fs.readFileSync(path.join(keptRenderers(roots)[0]!, 'entry.mjs'), 'utf8')).not.toContain('a damaged renderer');
  });

  it('places the pages kept from the earlier site as it renders, again after the renderer is made again, and fails the site, not itself, when they cannot be placed', { timeout: 480_000 }, async () => {
    const sessions = [FIXTURE_SESSIONS.rewind!, FIXTURE_SESSIONS.bareStringResult!, FIXTURE_SESSIONS.nestedAgents!];
    const bundle = path.join(await exportedSessions(sessions), 'bundle');
    const folder = temporaryFolder({ forFile: true });
    const roots = buildRoots();
    const cache = path.join(folder, 'cache');
    // The rewind's input changes each time, as when it grew: its pages are rendered again, the others' kept.
    const inputs = (round: number) => new Map(sessions.map((id) => [id, id === FIXTURE_SESSIONS.rewind ? `round ${round}` : 'unchanged']));
    const site = (name: string, round: number) => buildSite(bundle, path.join(folder, name), cache, { buildRoots: roots, builds: 1, inputs: inputs(round) });
    // What the same inputs give rendered whole, into a cache of its own.
    const whole = async (round: number) => {
      await buildSite(bundle, path.join(folder, `whole-${round}`), path.join(folder, `whole-cache-${round}`), { buildRoots: roots, builds: 1, inputs: inputs(round) });
      return filesOf(path.join(folder, `whole-${round}`));
    };
    await site('first', 1);

    const second = await site('second', 2);
    expect(second.built).toBeGreaterThan(0);
    expect(second.built).toBeLessThan(second.pages);
    expectSameFiles(filesOf(path.join(folder, 'second')), await whole(2));

    // A renderer that fails once the kept pages are placed: what it wrote
    // goes, and the renderer made again places them again.
    const [kept] = keptRenderers(roots);
    fs.chmodSync(path.join(kept!, 'entry.mjs'), 0o644);
    fs.writeFileSync(path.join(kept!, 'entry.mjs'), 'throw new Error("a damaged renderer");\n');
    const rebuilt = await site('rebuilt', 3);
    expect(rebuilt.built).toBeLessThan(rebuilt.pages);
    expectSameFiles(filesOf(path.join(folder, 'rebuilt')), await whole(3));

    // A kept page that cannot be placed is the site's failure, said as it
    // is; the renderer that rendered meanwhile is kept.
    const renderers = keptRenderers(roots);
    const stray = path.join(folder, 'stray', 'c', `${FIXTURE_SESSIONS.nestedAgents}.html`);
    fs.mkdirSync(path.dirname(stray), { recursive: true });
    fs.writeFileSync(stray, 'not a page of this site');
    await expect(site('stray', 4)).rejects.toThrow(/EEXIST.*c\/[^ ]*\.html/);
    expect(keptRenderers(roots)).toEqual(renderers);
  });

  it('is made before any export by npm ci\'s prepare, once for the code, and renders the first site with no build', { timeout: 120_000 }, async () => {
    const bundle = path.join(await exportedSessions([FIXTURE_SESSIONS.rewind]), 'bundle');
    const folder = temporaryFolder({ forFile: true });
    const roots = buildRoots();
    expect(await prepareRenderer(roots)).toBe('made');
    const [kept] = keptRenderers(roots);
    // Kept already: nothing is built again.
    expect(await prepareRenderer(roots)).toBe('kept');
    expect(keptRenderers(roots)).toEqual([kept]);
    expect(fs.readdirSync(roots).filter((name) => name.startsWith('astro-'))).toEqual([]);
    const first = await buildSite(bundle, path.join(folder, 'site'), path.join(folder, 'cache'), { buildRoots: roots, builds: 1 });
    expect(first.built).toBe(first.pages);
    expect(keptRenderers(roots)).toEqual([kept]);
  });
});
