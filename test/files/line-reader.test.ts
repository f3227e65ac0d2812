import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstLine, withOpenFile } from '../../src/files/line-reader.ts';
import { temporaryFolder } from '../helpers.ts';

describe('the first line of a file', () => {
  const firstOf = (content: string): string | undefined => {
    const file = path.join(temporaryFolder(), 'file');
    fs.writeFileSync(file, content);
    return withOpenFile(file, (descriptor) => firstLine(descriptor, fs.fstatSync(descriptor).size)?.toString('utf8'));
  };

  it('is the bytes before the first newline, however long', () => {
    expect(firstOf('{"t":"header"}\n{"t":"entity"}\n')).toBe('{"t":"header"}');
    const long = 'x'.repeat(3 << 20);
    expect(firstOf(`${long}\nnext\n`)).toBe(long);
    expect(firstOf('\nsecond\n')).toBe('');
  });

  it('is none when no line is complete', () => {
    expect(firstOf('')).toBeUndefined();
    expect(firstOf('a write in progress')).toBeUndefined();
    expect(firstOf('y'.repeat(40 << 10))).toBeUndefined();
  });
});
