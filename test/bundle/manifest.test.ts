import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { compareBytes, digestFiles, writeManifest } from '../../src/bundle/manifest.ts';
import { temporaryFolder } from '../helpers.ts';

describe('the order of paths in a manifest and an archive', () => {
  it('is the order of their UTF-8 bytes, characters beyond U+FFFF included', () => {
    const names = ['a', 'a/b', 'a-b', 'ab', 'A', 'é', 'e\u0301', '\u00ff', '\u0100', '\ud7ff', '\ue000', '\uffff', '\u{1f600}', '\u{10000}', 'x\u{1f600}y', 'x\uffffy', 'x', ''];
    const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
    for (const a of names) for (const b of names) expect(Math.sign(compareBytes(a, b)), `${JSON.stringify(a)} against ${JSON.stringify(b)}`).toBe(byBytes(a, b));
  });
});

describe('a manifest written with what the export knows of its files', () => {
  it('is the manifest a walk of every file gives, with the listed folder not walked and the known sizes not measured', () => {
    const write = (root: string): void => {
      for (const [file, text] of [['bundle/s/streams/main/a.jsonl', '{"a":1}\n'], ['bundle/s/streams/main/a.sd', 'derived'], ['bundle/_conversations/s/rounds/r1.sf', 'round'], ['site/index.html', '<p>index</p>'], ['site/c/s.html', '<p>page</p>'], ['.sessionizer-export', 'marker']] as const) {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
      }
    };
    const walked = temporaryFolder();
    write(walked);
    const whole = writeManifest(walked);

    const known = temporaryFolder();
    write(known);
    const bundle = digestFiles(known, 'bundle');
    const sizes = new Map(whole.entries.map(({ path: file, size }) => [file, size]));
    // Written after the walk of the bundle, as nothing in an export is: not listed.
    fs.writeFileSync(path.join(known, 'bundle', 'after the walk'), 'x');
    const measured: string[] = [];
    const statSync = fs.statSync;
    const spy = vi.spyOn(fs, 'statSync').mockImplementation(((file: fs.PathLike, options?: fs.StatSyncOptions) => {
      measured.push(String(file));
      return statSync(file, options);
    }) as typeof fs.statSync);
    try {
      const listed = writeManifest(known, bundle, undefined, { sizes, listed: { under: 'bundle', files: [...bundle.keys()] } });
      expect([listed.rootDigest, listed.entries]).toEqual([whole.rootDigest, whole.entries]);
      expect(measured).toEqual([]);
      // Without them, every file is measured.
      writeManifest(walked);
      expect(measured).toHaveLength(whole.entries.length);
    } finally {
      spy.mockRestore();
    }
  });
});
