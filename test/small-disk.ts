// A small file system for full-disk tests: a tmpfs mounted on a temporary
// folder, sized so that what a test writes fills it part way through, and
// made larger again to stand for space freed. A suite that uses it is
// declared with describeWhere(tmpfsMissing(), …) and unmounts it in afterAll.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export class SmallDisk {
  readonly folder: string;
  private mounted = false;

  constructor(size: string, options: { readOnly?: boolean } = {}) {
    this.folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sessionizer-small-disk-'));
    run('mount', '-t', 'tmpfs', '-o', `size=${size}${options.readOnly ? ',ro' : ''}`, 'tmpfs', this.folder);
    this.mounted = true;
  }

  /** A path on the disk. */
  at(...parts: string[]): string {
    return path.join(this.folder, ...parts);
  }

  /** Changes its size: larger stands for space freed; smaller than what it holds is refused by the kernel. */
  resize(size: string): void {
    run('mount', '-o', `remount,size=${size}`, this.folder);
  }

  /** Bytes still free on it. */
  get free(): number {
    const stats = fs.statfsSync(this.folder);
    return stats.bavail * stats.bsize;
  }

  /** Fills it to `left` bytes of room with a file of its own, which `makeRoom` removes. */
  fill(left: number): void {
    const filler = this.at('.filler');
    const room = this.free - left;
    if (room > 0) fs.appendFileSync(filler, Buffer.alloc(room));
  }

  makeRoom(): void {
    fs.rmSync(this.at('.filler'), { force: true });
  }

  unmount(): void {
    if (!this.mounted) return;
    run('umount', this.folder);
    this.mounted = false;
    fs.rmSync(this.folder, { recursive: true, force: true });
  }
}

function run(...command: string[]): void {
  const done = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`${command.join(' ')}: ${(done.stderr || done.error?.message || `exit ${done.status}`).trim()}`);
}
