import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Flusher, type FlushedFile } from '../../src/landing/flush.ts';
import { temporaryFolder } from '../helpers.ts';

/** `count` files with `bytes` written to each, open for flushing. */
function openFiles(folder: string, count: number, bytes: number): FlushedFile[] {
  return Array.from({ length: count }, (_, index) => {
    const name = path.join(folder, `file-${index}`);
    const descriptor = fs.openSync(name, 'w');
    fs.writeSync(descriptor, Buffer.alloc(bytes, 'x'));
    return { descriptor, name, size: bytes };
  });
}

function closeAll(files: FlushedFile[]): void {
  for (const file of files) {
    try {
      fs.closeSync(file.descriptor);
    } catch {
      // The test closed it already.
    }
  }
}

// The helper thread, once started, serves every later flush of its Flusher.
describe('flushing files together', () => {
  it('flushes a few small files on the calling thread, and names a file it could not flush', () => {
    const flusher = new Flusher();
    const folder = temporaryFolder();
    const files = openFiles(folder, 3, 100);
    flusher.start(files, [folder]).wait();
    fs.closeSync(files[1]!.descriptor);
    const flushing = flusher.start(files, [folder]);
    expect(() => flushing.wait()).toThrow(expect.objectContaining({ message: expect.stringContaining(`${files[1]!.name}: could not be flushed to the disk`), code: 'EBADF' }));
    closeAll(files);
    expect(flusher.helperStarted).toBe(false);
    flusher.close();
  });

  it('hands many files, or a few big ones, to the helper thread, which names a file it could not flush the same way', () => {
    const flusher = new Flusher();
    const folder = temporaryFolder();
    const big = openFiles(folder, 1, 9 << 20);
    flusher.start(big).wait();
    expect(flusher.helperStarted).toBe(true);
    closeAll(big);

    const many = openFiles(path.join(folder), 40, 10);
    fs.closeSync(many[7]!.descriptor);
    const flushing = flusher.start(many, [folder]);
    expect(() => flushing.wait()).toThrow(expect.objectContaining({ message: expect.stringContaining(`${many[7]!.name}: could not be flushed to the disk`), code: 'EBADF' }));
    closeAll(many);
    flusher.close();
  });
});
