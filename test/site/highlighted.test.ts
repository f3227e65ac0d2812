// The highlight cache keeps blocks in files each build appends to, with an
// index line after each block's bytes (generator/highlighted.ts).

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cachedBlocks, highlightKey, openHighlightStore, removeEarlierBlocks } from '../../src/site/generator/highlighted.ts';
import { createHighlighter } from '../../src/site/generator/highlight.ts';
import { highlightStyleSheet, THEME_PAIR } from '../../src/site/generator/highlight-style.ts';
import { temporaryFolder } from '../helpers.ts';

describe('the highlight cache', () => {
  it('gives back what any build kept, in this build and the next', () => {
    const cache = temporaryFolder();
    const first = openHighlightStore(cache);
    const key = highlightKey('light/dark', 'ts', 'const a = 1;');
    expect(first.read(key)).toBeUndefined();
    first.add(key, '<span class="h-d73a49">const</span> a = 1; é');
    expect(first.read(key)).toBe('<span class="h-d73a49">const</span> a = 1; é');
    // Another build at the same time writes files of its own.
    const second = openHighlightStore(cache);
    const other = highlightKey('light/dark', 'py', 'x = 1');
    second.add(other, 'x = 1');
    first.close();
    second.close();
    expect(fs.readdirSync(path.join(cache, 'highlighted'))).toHaveLength(4);
    const next = openHighlightStore(cache);
    expect([next.read(key), next.read(other)]).toEqual(['<span class="h-d73a49">const</span> a = 1; é', 'x = 1']);
    next.close();
    expect(cachedBlocks(cache)).toBe(2);
  });

  it('leaves out a block whose index line or bytes a build that ended halfway did not finish', () => {
    const cache = temporaryFolder();
    const store = openHighlightStore(cache);
    const whole = highlightKey('light/dark', 'ts', 'whole');
    const cut = highlightKey('light/dark', 'ts', 'cut');
    store.add(whole, 'whole block');
    store.add(cut, 'a block whose bytes are cut');
    store.close();
    const folder = path.join(cache, 'highlighted');
    const blocks = fs.readdirSync(folder).find((name) => name.endsWith('.blocks'))!;
    fs.truncateSync(path.join(folder, blocks), 'whole block'.length + 5);
    // And an index line with no newline yet.
    fs.appendFileSync(path.join(folder, blocks.replace('.blocks', '.index')), `${highlightKey('light/dark', 'ts', 'half')} 0 5`);
    const next = openHighlightStore(cache);
    expect([next.read(whole), next.read(cut), next.read(highlightKey('light/dark', 'ts', 'half'))]).toEqual(['whole block', undefined, undefined]);
    next.close();
    expect(cachedBlocks(cache)).toBe(1);
  });

  it('removes the one-file-per-block folders of the earlier layout, and nothing else', () => {
    const cache = temporaryFolder();
    for (const folder of ['ab', 'pages', 'highlighted']) fs.mkdirSync(path.join(cache, folder));
    fs.writeFileSync(path.join(cache, 'ab', `${'ab'.repeat(32)}.html`), 'old');
    removeEarlierBlocks(cache);
    expect(fs.readdirSync(cache).sort()).toEqual(['highlighted', 'pages']);
  });
});

describe('the highlighted code’s themes', () => {
  it('keys a block by the themes it was highlighted with, so a change of theme highlights it again', () => {
    expect(highlightKey(THEME_PAIR, 'ts', 'const a = 1;')).not.toBe(highlightKey('github-light', 'ts', 'const a = 1;'));
  });

  it('colours a token with the light theme, and with the dark one under a dark colour scheme on a screen', async () => {
    const sheet = await highlightStyleSheet();
    const dark = sheet.indexOf('@media screen and (prefers-color-scheme: dark) {');
    expect(sheet.indexOf('.h-24292e{color:#24292e}')).toBeGreaterThanOrEqual(0);
    expect(sheet.indexOf('.h-24292e{color:#24292e}')).toBeLessThan(dark);
    expect(sheet.indexOf('.d-e1e4e8{color:#e1e4e8}')).toBeGreaterThan(dark);
    expect(sheet).not.toContain('filter');
  });

  it('gives every token a class of each theme', async () => {
    const cache = temporaryFolder();
    const highlighter = await createHighlighter(cache);
    const html = (await highlighter.ensure('ts', 'const a: number = 1; // one'))!;
    highlighter.dispose();
    const spans = [...html.matchAll(/<span class="([^"]*)">/g)].map((match) => match[1]!);
    expect(spans.length).toBeGreaterThan(3);
    for (const classes of spans) expect(classes).toMatch(/^h-[0-9a-f]{6} d-[0-9a-f]{6}( hi)?( hb)?$/);
    expect(html).toContain('<span class="h-d73a49 d-f97583">const</span>');
  });
});

describe('a block’s highlighting, whatever the process highlighted before', () => {
  // Markdown embeds a fence's language only once that language is loaded,
  // and vue's grammars inject into Markdown, ts-tags' into TypeScript.
  const markdown = '3. **Migration**:\n   ```sql\n   -- Step 1: add tenant_id\n   ALTER TABLE users ADD COLUMN tenant_id uuid;\n   ```\n\n<div>html</div>\n';
  const typescript = 'const style = css`\n  color: red;\n`;\nconst query = sql`select 1`;\n';
  const before: ReadonlyArray<readonly [string, string]> = [
    ['sql', 'select 1; -- one'],
    ['vue', '<template><div>{{ a }}</div></template>\n<script setup lang="ts">const a = 1;</script>\n'],
    ['nix', '{ pkgs }: pkgs.hello'],
    ['ts-tags', 'const a = html`<p>${b}</p>`;'],
  ];

  it('is the same in a fresh highlighter and after other languages, and a fence in a Markdown file stays plain, its Markdown highlighted', { timeout: 60_000 }, async () => {
    const fresh = await createHighlighter(temporaryFolder());
    const alone = [await fresh.ensure('md', markdown), await fresh.ensure('ts', typescript)];
    fresh.dispose();
    const used = await createHighlighter(temporaryFolder());
    for (const [language, code] of before) await used.ensure(language, code);
    const after = [await used.ensure('md', markdown), await used.ensure('ts', typescript)];
    used.dispose();
    expect(after).toEqual(alone);
    // The SQL comment is not coloured as a comment: the fence's language is not loaded for Markdown.
    expect(alone[0]).toContain('-- Step 1: add tenant_id');
    expect(alone[0]).not.toContain('<span class="h-6a737d d-6a737d">-- Step 1: add tenant_id</span>');
  });
});
