// Whether a process of this host has ended: what tells a stale lock, or a
// folder or file left by a crashed or interrupted run, from one still in use.

import fs from 'node:fs';
import path from 'node:path';
import { listFolder } from './folders.ts';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM means the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True for another process of this host that is no longer running: what it left behind is nobody's. */
export function hasEnded(pid: number): boolean {
  return pid !== process.pid && !isRunning(pid);
}

/**
 * Removes from `folder` what ended processes left there: each entry whose
 * name `pidOf` reads a process id from, when that process has ended. Entries
 * of running processes, this one included, are theirs and stay.
 */
export function removeWhatEndedProcessesLeft(folder: string, pidOf: (name: string) => string | undefined): void {
  for (const name of listFolder(folder)) {
    const pid = pidOf(name);
    if (pid !== undefined && hasEnded(Number(pid))) fs.rmSync(path.join(folder, name), { recursive: true, force: true });
  }
}
