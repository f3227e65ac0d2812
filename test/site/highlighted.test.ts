// The highlight cache keeps blocks in files each build appends to, with an
// index line after each block's bytes (data/highlighted.ts).

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cachedBlocks, highlightKey, openHighlightStore, removeEarlierBlocks } from '../../src/site/data/highlighted.ts';
import { temporaryFolder } from '../helpers.ts';

describe('the highlight cache', () => {
  it('gives back what any build kept, in this build and the next', () => {
    const cache = temporaryFolder();
    const first = openHighlightStore(cache);
    const key = highlightKey('ts', 'const a = 1;');
    expect(first.read(key)).toBeUndefined();
    first.add(key, '<span class="h-d73a49">const</span> a = 1; é');
    expect(first.read(key)).toBe('<span class="h-d73a49">const</span> a = 1; é');
    // Another build at the same time writes files of its own.
    const second = openHighlightStore(cache);
    const other = highlightKey('py', 'x = 1');
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
    const whole = highlightKey('ts', 'whole');
    const cut = highlightKey('ts', 'cut');
    store.add(whole, 'whole block');
    store.add(cut, 'a block whose bytes are cut');
    store.close();
    const folder = path.join(cache, 'highlighted');
    const blocks = fs.readdirSync(folder).find((name) => name.endsWith('.blocks'))!;
    fs.truncateSync(path.join(folder, blocks), 'whole block'.length + 5);
    // And an index line with no newline yet.
    fs.appendFileSync(path.join(folder, blocks.replace('.blocks', '.index')), `${highlightKey('ts', 'half')} 0 5`);
    const next = openHighlightStore(cache);
    expect([next.read(whole), next.read(cut), next.read(highlightKey('ts', 'half'))]).toEqual(['whole block', undefined, undefined]);
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
