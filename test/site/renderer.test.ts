// The renderer a build keeps: the pages' code bundled with an on-demand
// route, which renders the pages of a later export without an Astro build.
// Its pages must be the bytes a build writes, and a renderer that fails
// must cost a build, never the export.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { writeExport } from '../../src/bundle/export.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { collectOnce, copyOfFixtures, temporaryFolder } from '../helpers.ts';

const BUILD_ROOTS = fileURLToPath(new URL('../../node_modules/.cache/sessionizer-site/', import.meta.url));

function keptRenderers(): string[] {
  return fs.existsSync(BUILD_ROOTS) ? fs.readdirSync(BUILD_ROOTS).filter((name) => name.startsWith('renderer-')).map((name) => path.join(BUILD_ROOTS, name)) : [];
}

/** Every file of a site, by path, with its bytes. */
function siteFiles(site: string): Map<string, Buffer> {
  return new Map(fs.readdirSync(site, { recursive: true }).map(String).filter((name) => fs.statSync(path.join(site, name)).isFile()).sort().map((name) => [name, fs.readFileSync(path.join(site, name))]));
}

describe('the kept renderer', () => {
  it('is kept by a build, renders the same bytes with no build, and gives way to a build when it fails', async () => {
    const root = copyOfFixtures({ forFile: true });
    const data = temporaryFolder({ forFile: true });
    collectOnce(root, data);
    const sessions = [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.bareStringResult, FIXTURE_SESSIONS.nestedAgents, FIXTURE_SESSIONS.compaction];
    for (const session of sessions) parseSession(data, session);
    const exportWhole = async (name: string) => {
      // No kept pages: every page is rendered.
      fs.rmSync(path.join(data, '_site-cache', 'pages'), { recursive: true, force: true });
      const out = path.join(temporaryFolder({ forFile: true }), name);
      const result = await writeExport(data, out, sessions);
      return { result, files: siteFiles(path.join(out, 'site')) };
    };

    for (const renderer of keptRenderers()) fs.rmSync(renderer, { recursive: true, force: true });
    const built = await exportWhole('built');
    expect(built.result.site!.byKeptRenderer).toBe(false);
    const [kept] = keptRenderers();
    expect(kept).toBeDefined();
    expect(fs.existsSync(path.join(kept!, 'entry.mjs'))).toBe(true);

    const rendered = await exportWhole('rendered');
    expect(rendered.result.site!.rendererFailure).toBeUndefined();
    expect(rendered.result.site!.byKeptRenderer).toBe(true);
    expect(rendered.result.site!.built).toBe(built.result.site!.built);
    expect([...rendered.files.keys()]).toEqual([...built.files.keys()]);
    for (const [name, bytes] of built.files) expect(rendered.files.get(name)!.equals(bytes), name).toBe(true);
    expect(rendered.result.rootDigest).toBe(built.result.rootDigest);

    // A renderer that no longer runs is dropped, and a build renders the pages.
    fs.chmodSync(path.join(kept!, 'entry.mjs'), 0o644);
    fs.writeFileSync(path.join(kept!, 'entry.mjs'), 'throw new Error("a damaged renderer");\n');
    const rebuilt = await exportWhole('rebuilt');
    expect(rebuilt.result.site!.byKeptRenderer).toBe(false);
    expect(rebuilt.result.site!.rendererFailure).toContain('a damaged renderer');
    expect(rebuilt.result.rootDigest).toBe(built.result.rootDigest);
    // The build that took over keeps a working renderer again.
    expect(keptRenderers()).toHaveLength(1);
    expect(fs.readFileSync(path.join(keptRenderers()[0]!, 'entry.mjs'), 'utf8')).not.toContain('a damaged renderer');
  });
});
