// The site's caches (src/site/generator/caches.ts) change how long a site
// takes, never its bytes: a site rendered with every cache warm, and with
// one conversation rendered again from them, is the site rendered with
// every cache deleted.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { buildSite } from '../../src/site/generator/site.ts';
import { SiteCaches } from '../../src/site/generator/caches.ts';
import { expectSameFiles, exportedSessions, filesOf, temporaryFolder } from '../helpers.ts';

describe('the site caches', () => {
  it('remove what an earlier version kept that no build reads, and nothing else', () => {
    const folder = temporaryFolder();
    for (const name of ['highlighted', 'ab', '0f', 'pages', 'abc', 'notes']) fs.mkdirSync(path.join(folder, name, 'inner'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'page-stamps'), '');
    new SiteCaches(folder).removeEarlierForms();
    expect(fs.readdirSync(folder).sort()).toEqual(['abc', 'notes', 'page-stamps', 'pages']);
    expect(fs.existsSync(path.join(folder, 'pages', 'inner'))).toBe(true);
  });

  it('change no byte of the site: with every cache warm, or one conversation rendered again from them, it is the site rendered with none', { timeout: 300_000 }, async () => {
    const sessions = [FIXTURE_SESSIONS.rewind!, FIXTURE_SESSIONS.bareStringResult!, FIXTURE_SESSIONS.nestedAgents!, FIXTURE_SESSIONS.compaction!];
    const bundle = path.join(await exportedSessions(sessions), 'bundle');
    const folder = temporaryFolder({ forFile: true });
    const cache = path.join(folder, 'cache');
    // The rewind's input changes in the second round, as when it grew: its pages are rendered again from the caches, the others' placed.
    const inputs = (round: number) => new Map(sessions.map((id) => [id, id === FIXTURE_SESSIONS.rewind ? `round ${round}` : 'unchanged']));
    const site = (name: string, round: number) => buildSite(bundle, path.join(folder, name), cache, { builds: 1, inputs: inputs(round) });

    const cold = await site('cold', 1);
    expect(cold.built).toBe(cold.pages);
    const reference = filesOf(path.join(folder, 'cold'));
    // Each conversation's search script is held once: the site's file, linked into the store, and no other copy.
    const scripts = fs.readdirSync(path.join(folder, 'cold', 'search'));
    expect(scripts).toHaveLength(sessions.length);
    for (const script of scripts) expect(fs.statSync(path.join(folder, 'cold', 'search', script)).nlink).toBe(2);
    const cached = (fs.readdirSync(cache, { recursive: true }) as string[]).filter((file) => file.endsWith('.js'));
    expect(cached.filter((file) => !file.includes(`${path.sep}files${path.sep}`))).toEqual([]);

    const warm = await site('warm', 1);
    expect(warm.built).toBe(0);
    expectSameFiles(filesOf(path.join(folder, 'warm')), reference);

    const again = await site('again', 2);
    expect(again.built + again.keptFromEarlier).toBeGreaterThan(0);
    expect(again.built).toBeLessThan(again.pages);
    expectSameFiles(filesOf(path.join(folder, 'again')), reference);

    fs.rmSync(cache, { recursive: true });
    const none = await site('none', 2);
    expect([none.built, none.keptFromEarlier]).toEqual([none.pages, 0]);
    expectSameFiles(filesOf(path.join(folder, 'none')), reference);
  });
});
