// The site's rendering is shared out between children that run at once,
// Astro builds or the kept renderer (generator/site.ts): the lead renders the
// index and search pages from the plans the others save. Whatever the
// sharing, the site is the same bytes; and a build that fails stops the
// others, with its own error.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { BUILD_ROOTS } from '../../src/site/generator/kept-renderer.ts';
import os from 'node:os';
import { buildSite, BYTES_PER_CHILD, shareOut } from '../../src/site/generator/site.ts';
import { expectSameFiles, exportedSessions, filesOf, temporaryFolder } from '../helpers.ts';

/** A bundle folder whose conversations hold files of these sizes, sparse, so that they cost no disk. */
function weighedBundle(sizes: Record<string, number>): string {
  const bundle = temporaryFolder();
  for (const [id, bytes] of Object.entries(sizes)) {
    fs.mkdirSync(path.join(bundle, '_conversations', id), { recursive: true });
    const file = path.join(bundle, '_conversations', id, 'rounds.sf');
    fs.writeFileSync(file, '');
    fs.truncateSync(file, bytes);
  }
  return bundle;
}

describe('sharing the conversations out', () => {
  const cores = os.availableParallelism();
  it.skipIf(cores < 2)('gives a second child a site of some tens of megabytes of bundle, the largest conversations claimed first', () => {
    const mb = 1024 * 1024;
    const bundle = weighedBundle({ d: 1 * mb, b: 12 * mb, a: 20 * mb, c: 8 * mb });
    expect(shareOut(bundle, ['d', 'b', 'a', 'c'], undefined)).toEqual({ builds: 2, order: ['a', 'b', 'c', 'd'] });
  });
  it('keeps a small site in one child', () => {
    const bundle = weighedBundle({ a: BYTES_PER_CHILD / 2, b: BYTES_PER_CHILD / 4 });
    expect(shareOut(bundle, ['a', 'b'], undefined).builds).toBe(1);
  });
});

describe('builds that share the rendering', () => {
  it('give the bytes one build gives, and count the memory of all of them', { timeout: 180_000 }, async () => {
    const out = await exportedSessions([FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.bareStringResult, FIXTURE_SESSIONS.nestedAgents, FIXTURE_SESSIONS.workflow, FIXTURE_SESSIONS.compaction]);
    const folder = temporaryFolder();
    await buildSite(path.join(out, 'bundle'), path.join(folder, 'one'), path.join(folder, 'cache-one'), { builds: 1 });
    const measured: number[] = [];
    const shared = await buildSite(path.join(out, 'bundle'), path.join(folder, 'three'), path.join(folder, 'cache-three'), { builds: 3, observer: { step() {}, advance() {}, childMemory: (bytes) => void measured.push(bytes) } });
    expect(shared.built).toBe(shared.pages);
    const one = filesOf(path.join(folder, 'one'));
    const three = filesOf(path.join(folder, 'three'));
    expectSameFiles(three, one);
    // Three processes at once: one sum, above what one of them holds. (With
    // no renderer kept, the build that makes it reports its own peak first.)
    expect(Math.max(...measured)).toBeGreaterThan(3 * 50 * 1024 * 1024);
    // The index lists the conversations the other builds rendered.
    expect(three.get('index.html')!.toString('utf8')).toContain(FIXTURE_SESSIONS.workflow);
  });

  it('stop when one fails, with the error of the one that failed', { timeout: 180_000 }, async () => {
    const out = await exportedSessions([FIXTURE_SESSIONS.rewind]);
    // A conversation with no rounds fails whichever build claims it; were it
    // the other build, the lead would otherwise wait for its plan for ever.
    fs.mkdirSync(path.join(out, 'bundle', '_conversations', 'no-rounds'));
    const folder = temporaryFolder();
    await expect(buildSite(path.join(out, 'bundle'), path.join(folder, 'site'), path.join(folder, 'cache'), { builds: 2 })).rejects.toThrow(/failed with exit code 1:[\s\S]*_conversations\/no-rounds: the conversation has no rounds/);
    expect(fs.readdirSync(BUILD_ROOTS).filter((name) => name.startsWith(`astro-${process.pid}-`))).toEqual([]);
  });
});
