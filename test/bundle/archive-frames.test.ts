import { describe, expect, it } from 'vitest';
import { conversationsNamed, framesOf, groupOf, LARGE_GROUP_BYTES, ownerOf } from '../../src/bundle/archive-frames.ts';

const conversations = new Set(['one', 'two-3', 'three']);

describe('what a path of an export belongs to', () => {
  it('finds the conversations from the bundle, folders included', () => {
    expect(conversationsNamed(['bundle/one/streams/main/x.jsonl', 'bundle/_conversations/two-3/rounds/1.sf', 'bundle/_conversations/', 'site/c/four.html', 'manifest.json'])).toEqual(new Set(['one', 'two-3']));
  });

  it('gives evidence, rounds and every kind of page to their conversation', () => {
    expect(ownerOf('bundle/one/', conversations)).toBe('one');
    expect(ownerOf('bundle/one/streams/main/transcript-20260101T000000.000Z-000001.jsonl', conversations)).toBe('one');
    expect(ownerOf('bundle/_conversations/two-3/rounds/000001.sf', conversations)).toBe('two-3');
    expect(ownerOf('site/c/one.html', conversations)).toBe('one');
    expect(ownerOf('site/e/one--1.html', conversations)).toBe('one');
    expect(ownerOf('site/e/two-3--12-2.html', conversations)).toBe('two-3');
    expect(ownerOf('site/c/one-2.html', conversations)).toBe('one');
    // An id that ends like a page number is still found whole.
    expect(ownerOf('site/c/two-3.html', conversations)).toBe('two-3');
    expect(ownerOf('site/c/two-3-2.html', conversations)).toBe('two-3');
    expect(ownerOf('site/s/three--agent-a1.html', conversations)).toBe('three');
    expect(ownerOf('site/b/one--a--b-2.html', conversations)).toBe('one');
    expect(ownerOf('site/search/two-3.js', conversations)).toBe('two-3');
  });

  it('gives the rest to the export', () => {
    for (const name of ['bundle/', 'bundle/_conversations/', 'site/c/', 'site/index.html', 'site/c/four.html', 'manifest.json', 'site/c/one.css', 'site/search/', 'site/search/four.js', 'site/search/one/x.js', 'site/search.js']) expect(ownerOf(name, conversations), name).toBeUndefined();
  });
});

describe('the frames an archive is cut into', () => {
  const entries = (groups: [string, number][]): { name: string; size: number }[] => groups.map(([name, size]) => ({ name, size }));
  const cut = (list: { name: string; size: number }[]): string[][] => {
    const conversations = new Set(list.map((item) => item.name.split('/')[1]!));
    return framesOf(list, (entry) => groupOf(entry.name, ownerOf(entry.name, conversations))).map((frame) => frame.map((entry) => entry.name));
  };

  it('keeps a conversation whole, and the export\'s own files and large groups in frames of their own', () => {
    const names: [string, number][] = Array.from({ length: 40 }, (_, index) => [`bundle/c${String(index).padStart(2, '0')}/x`, 100]);
    names.push(['bundle/c20/y', 0]);
    names.sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const list = entries([...names, ['bundle/c99/big', LARGE_GROUP_BYTES], ['manifest.json', 10]]);
    const frames = cut(list);
    expect(frames.flat()).toEqual(list.map((entry) => entry.name));
    expect(frames.filter((frame) => frame.includes('bundle/c20/x'))[0]).toContain('bundle/c20/y');
    expect(frames).toContainEqual(['bundle/c99/big']);
    expect(frames.at(-1)).toEqual(['manifest.json']);
    // Runs of several conversations, not one frame each.
    expect(frames.length).toBeLessThan(30);
    expect(frames.length).toBeGreaterThan(2);
  });

  it('moves no cut but its own when a conversation grows, even past the size of a large group', () => {
    const before = entries(Array.from({ length: 60 }, (_, index) => [`bundle/c${String(index).padStart(2, '0')}/x`, 1000] as [string, number]));
    for (const size of [5000, LARGE_GROUP_BYTES]) {
      const after = before.map((entry) => (entry.name === 'bundle/c30/x' ? { ...entry, size } : entry));
      const unchanged = (frames: string[][]): string[] => frames.filter((frame) => !frame.includes('bundle/c30/x')).map((frame) => frame.join(' '));
      const kept = new Set(unchanged(cut(before)));
      const missing = unchanged(cut(after)).filter((frame) => !kept.has(frame));
      // Only a frame next to the one that grew can differ, where it is cut off from it.
      expect(missing.length, String(size)).toBeLessThanOrEqual(2);
      for (const frame of missing) expect(frame.includes('bundle/c29/x') || frame.includes('bundle/c31/x')).toBe(true);
    }
  });

  it('cuts a large group into frames of a few pages, of which a changed page changes one or two', () => {
    const pages = entries([['site/c/big.html', 600_000], ...Array.from({ length: 99 }, (_, index) => [`site/c/big-${index + 2}.html`, 600_000] as [string, number])]);
    const frames = cut(pages);
    expect(frames.flat()).toEqual(pages.map((entry) => entry.name));
    expect(frames.length).toBeGreaterThan(4);
    const bytes = (frame: string[]): number => frame.reduce((sum, name) => sum + pages.find((entry) => entry.name === name)!.size, 0);
    for (const frame of frames.slice(0, -1)) expect(bytes(frame)).toBeGreaterThanOrEqual(1 << 20);
    const before = new Set(frames.map((frame) => frame.join(' ')));
    for (const changed of ['site/c/big.html', 'site/c/big-50.html', 'site/c/big-100.html']) {
      const after = cut(pages.map((entry) => (entry.name === changed ? { ...entry, size: entry.size + 5000 } : entry)));
      // The cuts stay where they were, but next to the page, and its frame is a small part of the group.
      expect(after.filter((frame) => !before.has(frame.join(' '))).length, changed).toBeLessThanOrEqual(2);
      expect(after.find((frame) => frame.includes(changed))!.length, changed).toBeLessThan(pages.length / 4);
    }
    // A page added at the end changes the last frame alone.
    const grown = cut([...pages, { name: 'site/c/big-99x.html', size: 600_000 }]);
    expect(grown.filter((frame) => !before.has(frame.join(' ')))).toEqual([[...frames.at(-1)!, 'site/c/big-99x.html']]);
  });

  it('gives a conversation that grows by an evidence page a frame or two of a few pages to compress again, not a frame of all its pages', () => {
    // Conversations of a few evidence pages each, none of them a large group.
    const pages = (conversation: number, count: number): [string, number][] => Array.from({ length: count }, (_, index) => [`site/e/c${conversation}--${index + 1}.html`, 150_000] as [string, number]);
    const conversations = Array.from({ length: 40 }, (_, index) => 10 + index);
    const before = entries(conversations.flatMap((conversation) => pages(conversation, 3)));
    const after = entries(conversations.flatMap((conversation) => pages(conversation, conversation === 30 ? 4 : 3)));
    const owners = new Set(conversations.map((conversation) => `c${conversation}`));
    const cutPages = (list: { name: string; size: number }[]): string[][] => framesOf(list, (entry) => groupOf(entry.name, ownerOf(entry.name, owners))).map((frame) => frame.map((entry) => entry.name));
    const frames = cutPages(before);
    expect(frames.flat()).toEqual(before.map((entry) => entry.name));
    const kept = new Set(frames.map((frame) => frame.join(' ')));
    const changed = cutPages(after).filter((frame) => !kept.has(frame.join(' ')));
    expect(changed.flat()).toContain('site/e/c30--4.html');
    // Cut where the frames hold a megabyte: a few pages to compress again, not a run of conversations.
    expect(changed.flat().length).toBeLessThanOrEqual(20);
    expect(frames.length).toBeGreaterThan(8);
  });

  it('never cuts a large group between a landed file and its .sd', () => {
    const stream = 'bundle/c10/streams/main';
    const list = entries(Array.from({ length: 60 }, (_, index) => [
      [`${stream}/transcript-20260101T000000.000Z-${String(index + 1).padStart(6, '0')}.jsonl`, 400_000] as [string, number],
      [`${stream}/transcript-20260101T000000.000Z-${String(index + 1).padStart(6, '0')}.sd`, 400_000] as [string, number],
    ]).flat());
    const frames = cut(list);
    expect(frames.length).toBeGreaterThan(2);
    for (const frame of frames) expect(frame.at(-1)).toMatch(/\.sd$/);
  });

  it('gives a large file a frame of its own, which stays the same while its conversation grows after it', () => {
    const stream = 'bundle/c10/streams/main';
    const before = entries([
      ['bundle/c09/x', 100],
      [`${stream}/transcript-1.jsonl`, LARGE_GROUP_BYTES],
      [`${stream}/transcript-1.sd`, LARGE_GROUP_BYTES + 1],
      [`${stream}/transcript-2.jsonl`, 100],
      [`${stream}/transcript-2.sd`, 100],
      ['bundle/c11/x', 100],
    ]);
    const after = [...before.slice(0, 5), ...entries([[`${stream}/transcript-3.jsonl`, 100], [`${stream}/transcript-3.sd`, 100]]), ...before.slice(5)];
    for (const list of [before, after]) {
      const frames = cut(list);
      expect(frames.flat()).toEqual(list.map((entry) => entry.name));
      expect(frames).toContainEqual([`${stream}/transcript-1.jsonl`]);
      expect(frames).toContainEqual([`${stream}/transcript-1.sd`]);
    }
    // What grows joins the frame after the large files, and no other.
    const kept = new Set(cut(before).map((frame) => frame.join(' ')));
    expect(cut(after).filter((frame) => !kept.has(frame.join(' ')))).toEqual([[`${stream}/transcript-2.jsonl`, `${stream}/transcript-2.sd`, `${stream}/transcript-3.jsonl`, `${stream}/transcript-3.sd`]]);
  });
});

