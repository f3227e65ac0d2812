import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { helperStarted, startFlushing, type FlushedFile } from '../../src/landing/flush.ts';
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

// The order of these tests matters: the helper thread, once started, serves
// every later flush of the process.
describe('flushing files together', () => {
  it('flushes a few small files on the calling thread, and names a file it could not flush', () => {
    const folder = temporaryFolder();
    const files = openFiles(folder, 3, 100);
    startFlushing(files, [folder]).wait();
    fs.closeSync(files[1]!.descriptor);
    const flushing = startFlushing(files, [folder]);
    expect(() => flushing.wait()).toThrow(expect.objectContaining({ message: expect.stringContaining(`${files[1]!.name}: could not be flushed to the disk`), code: 'EBADF' }));
    closeAll(files);
    expect(helperStarted()).toBe(false);
  });

  it('hands many files, or a few big ones, to the helper thread, which names a file it could not flush the same way', () => {
    const folder = temporaryFolder();
    const big = openFiles(folder, 1, 9 << 20);
    startFlushing(big).wait();
    expect(helperStarted()).toBe(true);
    closeAll(big);

    const many = openFiles(path.join(folder), 40, 10);
    fs.closeSync(many[7]!.descriptor);
    const flushing = startFlushing(many, [folder]);
    expect(() => flushing.wait()).toThrow(expect.objectContaining({ message: expect.stringContaining(`${many[7]!.name}: could not be flushed to the disk`), code: 'EBADF' }));
    closeAll(many);
  });
});
