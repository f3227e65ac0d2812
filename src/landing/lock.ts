// One collector per session at a time.
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
  const file = lockPath(data, session);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const owner = `pid ${process.pid} on ${os.hostname()}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${owner}\n`, { flag: 'wx' });
      let held = true;
      return {
        release: () => {
          if (held) fs.rmSync(file, { force: true });
          held = false;
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(file);
    if (holder === undefined) continue; // released between our two calls
    if (!isStale(holder)) throw new SessionLockedError(session, holder);
    fs.rmSync(file, { force: true });
  }
  throw new SessionLockedError(session, readHolder(file) ?? 'unknown');
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
