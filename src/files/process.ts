// Whether a process of this host has ended: what tells a stale lock, or a
// folder or file left by a crashed or interrupted run, from one still in use.

import fs from 'node:fs';
import path from 'node:path';
import { writerOfTemporary } from './atomic-file.ts';
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
 * Tidies what ended processes left beside `target` while they replaced it
 * (a crash, a kill, an interruption): `leftBy` reads, from the name of an
 * entry of the target's folder, the process that left it and whether it is
 * the earlier target, moved aside for the swap, or the new one, half
 * written. An earlier one is put back when nothing took its place; anything
 * else is removed. What a process still running left is its own.
 */
export function recoverWhatEndedProcessesLeft(target: string, leftBy: (name: string) => { readonly pid: number; readonly earlier: boolean } | undefined): void {
  tidyWhatEndedProcessesLeft(path.dirname(target), listFolder(path.dirname(target)), (name) => {
    const left = leftBy(name);
    return left && { pid: left.pid, ...(left.earlier ? { putBackAs: target } : {}) };
  });
}

/**
 * Removes from `folder` what ended processes left there: each entry whose
 * name `pidOf` reads a process id from, when that process has ended. Entries
 * of running processes, this one included, are theirs and stay.
 */
export function removeWhatEndedProcessesLeft(folder: string, pidOf: (name: string) => string | undefined, names: Iterable<string> = listFolder(folder)): void {
  tidyWhatEndedProcessesLeft(folder, names, (name) => {
    const pid = pidOf(name);
    return pid === undefined ? undefined : { pid: Number(pid) };
  });
}

/** Each of `names` in `folder` that an ended process left: renamed to its `putBackAs` when that names nothing, else removed. */
function tidyWhatEndedProcessesLeft(folder: string, names: Iterable<string>, leftBy: (name: string) => { readonly pid: number; readonly putBackAs?: string } | undefined): void {
  for (const name of names) {
    const left = leftBy(name);
    if (left === undefined || !hasEnded(left.pid)) continue;
    const where = path.join(folder, name);
    if (left.putBackAs !== undefined && !fs.existsSync(left.putBackAs)) fs.renameSync(where, left.putBackAs);
    else fs.rmSync(where, { recursive: true, force: true });
  }
}

/** Whether `name` is a temporary file (atomic-file.ts) whose writer has ended. */
export function isLeftByEndedProcess(name: string): boolean {
  const pid = writerOfTemporary(name);
  return pid !== undefined && hasEnded(Number(pid));
}

/**
 * Removes the temporary files (atomic-file.ts) that ended processes left in
 * `folder`: a crash or a kill between a write and its rename. `names` is the
 * folder's listing when the caller has it already.
 */
export function removeLeftTemporaries(folder: string, names?: Iterable<string>): void {
  removeWhatEndedProcessesLeft(folder, writerOfTemporary, names);
}

/**
 * Removes the temporary files ended processes left at the top of the data
 * folder and in its folders of derived records (`_exports`, `_sources`, …).
 * Those of sessions and conversations go as they are collected and parsed.
 */
export function removeLeftoversOfDataFolder(data: string): void {
  removeLeftTemporaries(data);
  for (const name of listFolder(data)) if (name.startsWith('_')) removeLeftTemporaries(path.join(data, name));
}
