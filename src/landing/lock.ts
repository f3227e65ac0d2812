// One collector per session at a time, and one export per data folder.
//
// The sequence counter spans every stream of a session, so two collectors in
// one session would hand out the same number. The lock is a file created with
// O_EXCL, which the kernel makes atomic, holding the owner's process id and
// host. A lock whose owner on this host is no longer running is stale (the
// collector crashed or was killed) and is taken over; a lock held by another
// host cannot be checked and is respected.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { temporaryPathOf } from '../files/atomic-file.ts';
import { namingFile } from '../files/write-failure.ts';
import { lockPath } from './layout.ts';
import { hasEnded } from '../files/process.ts';

export class SessionLockedError extends Error {
  constructor(
    readonly session: string,
    readonly holder: string,
  ) {
    super(`session ${session} is being collected by another collector (${holder}); it was left alone`);
  }
}

export interface SessionLock {
  release(): void;
}

export function lockSession(data: string, session: string): SessionLock {
  return takeLock(lockPath(data, session), (holder) => new SessionLockedError(session, holder));
}

/** Another export holds the data folder's lock. */
export class DataFolderLockedError extends Error {
  constructor(
    readonly data: string,
    readonly holder: string,
  ) {
    super(`the data folder ${data} is in use by another export (${holder}); run this one when it has finished`);
  }
}

/**
 * One export at a time per data folder: exports share the folder's site
 * cache, the archive's frame index and the record of reused files, and two
 * at once overwrite each other's. Collectors are not held back by it: they
 * lock each session (lockSession).
 */
export function lockDataFolder(data: string): SessionLock {
  return takeLock(path.join(data, EXPORT_LOCK), (holder) => new DataFolderLockedError(data, holder));
}

/**
 * Who holds the data folder's export lock, when a process that has not
 * ended does; read only, nothing is written.
 */
export function dataFolderHolder(data: string): string | undefined {
  const holder = writtenHolder(path.join(data, EXPORT_LOCK));
  return holder !== undefined && holder !== '' && !isStale(holder) ? holder : undefined;
}

/** The data folder's export lock, beside the session folders; the leading `_` keeps it from being read as one. */
export const EXPORT_LOCK = '_export.lock';

function takeLock(file: string, held: (holder: string) => Error): SessionLock {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const owner = `pid ${process.pid} on ${os.hostname()}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeHolder(file, `${owner}\n`);
      let holding = true;
      return {
        release: () => {
          if (holding) fs.rmSync(file, { force: true });
          holding = false;
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = writtenHolder(file);
    if (holder === undefined) continue; // released between our two calls
    if (!isStale(holder)) throw held(holder);
    takeOverStale(file, holder);
  }
  throw held(readHolder(file) ?? 'unknown');
}

/**
 * Makes the lock, failing with EEXIST when there is one. A lock made and
 * not written (a full disk) is removed at once: left empty, it would read as
 * one being written by someone, for ever.
 */
function writeHolder(file: string, holder: string): void {
  const descriptor = fs.openSync(file, 'wx');
  try {
    fs.writeSync(descriptor, holder);
  } catch (error) {
    fs.closeSync(descriptor);
    fs.rmSync(file, { force: true });
    throw namingFile(file, error);
  }
  fs.closeSync(descriptor);
}

/**
 * Removes a session's lock if this process holds it: for a lock left by a
 * thread of this process that stopped without releasing it (a collection
 * worker that failed), which no later pass of this process could otherwise take.
 */
export function releaseLockHeldByThisProcess(data: string, session: string): void {
  const file = lockPath(data, session);
  if (readHolder(file) === `pid ${process.pid} on ${os.hostname()}`) fs.rmSync(file, { force: true });
}

/**
 * Moves a stale lock out of the way. Renamed rather than removed: two
 * processes that both found it stale could otherwise each remove it, the
 * second removing the lock the first had just made. What was renamed is read
 * again, and a lock that is not the stale one is put back.
 */
function takeOverStale(file: string, stale: string): void {
  // Named as a temporary file (atomic-file.ts), so that one left by a crash here is removed as such.
  const aside = temporaryPathOf(file);
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // taken over by another process already
    throw error;
  }
  if (readHolder(aside) === stale) fs.rmSync(aside, { force: true });
  else fs.renameSync(aside, file);
}

// A lock is made empty and then written: a holder read as empty is being
// written, and is read again after a moment, this many times at most.
const HOLDER_READS = 50;
const HOLDER_WAIT_MS = 2;

/** The holder of the lock at `file` once its maker has written it; undefined when there is no lock. */
function writtenHolder(file: string): string | undefined {
  let holder = readHolder(file);
  for (let read = 1; holder === '' && read < HOLDER_READS; read++) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, HOLDER_WAIT_MS);
    holder = readHolder(file);
  }
  return holder;
}

function readHolder(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function isStale(holder: string): boolean {
  const match = /^pid (\d+) on (.*)$/.exec(holder);
  if (!match || match[2] !== os.hostname()) return false;
  return hasEnded(Number(match[1]));
}
