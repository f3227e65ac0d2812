// The site's Astro build runs in a child process (src/site/generator/astro-build.mjs):
// its failure must reach the export as an error that says what went wrong,
// and its memory must count in the step timings.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_ROOTS } from '../../src/site/generator/kept-renderer.ts';
import { buildSite } from '../../src/site/generator/site.ts';
import { temporaryFolder } from '../helpers.ts';

describe('the site build in its own process', () => {
  it('fails with the child’s own error, naming the conversation, and tells the observer nothing it did not measure', { timeout: 180_000 }, async () => {
    const folder = temporaryFolder();
    const bundle = path.join(folder, 'bundle');
    // A conversation folder with no rounds: the page plan refuses it inside the child.
    fs.mkdirSync(path.join(bundle, '_conversations', 'no-rounds'), { recursive: true });
    const measured: number[] = [];
    const observer = { step() {}, advance() {}, childMemory: (bytes: number) => void measured.push(bytes) };
    // Build roots an interrupted export left: one of a process that has ended goes, one of a running process stays.
    const ended = spawnSync(process.execPath, ['-e', '']).pid!;
    const abandoned = path.join(BUILD_ROOTS, `astro-${ended}-left`);
    const running = path.join(BUILD_ROOTS, 'astro-1-running');
    for (const root of [abandoned, running]) fs.mkdirSync(path.join(root, 'cache'), { recursive: true });
    await expect(buildSite(bundle, path.join(folder, 'site'), path.join(folder, 'cache'), { observer })).rejects.toThrow(/the site build \(.*astro-build\.mjs\) failed with exit code 1:[\s\S]*_conversations\/no-rounds: the conversation has no rounds/);
    expect(measured).toEqual([]);
    expect([fs.existsSync(abandoned), fs.existsSync(running)]).toEqual([false, true]);
    fs.rmSync(running, { recursive: true });
    // The failed build removed its own root.
    expect(fs.readdirSync(BUILD_ROOTS).filter((name) => name.startsWith(`astro-${process.pid}-`))).toEqual([]);
  });
});
