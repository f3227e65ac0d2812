// One command timed by GNU time: its wall time, its peak resident memory,
// and what it printed. The benchmarks run each measured step as a process of
// its own, so that its memory is its own.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface Timed {
  readonly seconds: number;
  readonly peakKb: number;
  /** User and system time of the process and its children: it moves far less than the wall time when other work shares the cores. */
  readonly cpuSeconds: number;
  readonly stdout: string;
}

export function timed(command: string, args: string[], cwd?: string): Timed {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %M %U %S', command, ...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}`);
  const [seconds, peak, user, system] = result.stderr.trim().split('\n').at(-1)!.split(' ');
  return { seconds: Number(seconds), peakKb: Number(peak), cpuSeconds: Number(user) + Number(system), stdout: result.stdout };
}

export function folderBytes(folder: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(folder, { withFileTypes: true, recursive: true })) if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  return total;
}
