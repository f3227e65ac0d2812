// The site's pages are rendered in child processes (src/site/generator/render.mjs):
// a failure must reach the export as an error that says what went wrong,
// after the renderer was made again once, and only what was measured counts
// in the step timings.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_ROOTS } from '../../src/site/generator/kept-renderer.ts';
import { buildSite } from '../../src/site/generator/site.ts';
import { temporaryFolder } from '../helpers.ts';

describe('the site build in its own process', () => {
  it('fails with the child’s own error, naming the conversation, once the renderer was made again, and tells the observer only what it measured', { timeout: 180_000 }, async () => {
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
    await expect(buildSite(bundle, path.join(folder, 'site'), path.join(folder, 'cache'), { observer })).rejects.toThrow(/the site build \(.*render\.mjs\) failed with exit code 1:[\s\S]*_conversations\/no-rounds: the conversation has no rounds/);
    // The renderer made again, which succeeded; not the children that failed.
    expect(measured).toHaveLength(1);
    expect(measured[0]).toBeGreaterThan(0);
    expect([fs.existsSync(abandoned), fs.existsSync(running)]).toEqual([false, true]);
    fs.rmSync(running, { recursive: true });
    // The failed build removed its own root.
    expect(fs.readdirSync(BUILD_ROOTS).filter((name) => name.startsWith(`astro-${process.pid}-`))).toEqual([]);
  });
});
