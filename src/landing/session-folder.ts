// One session's folder in the storage zone, as a collection pass works on
// it: where its state, lock, cursors and landed files are, what it holds
// (listed once, for the several questions a pass asks of it), and taking its
// lock; and which sessions a storage zone holds. The collection decides what
// to land; this module says where it goes.

import fs from 'node:fs';
import path from 'node:path';
import { removeLeftTemporaries } from '../files/process.ts';
import { cursorName, landedName, lockPath, placePath, sessionFolder, sessionStatePath, type Place } from './layout.ts';
import { lockSession, type SessionLock } from './lock.ts';
import { listSession, readSessionState, sessionStateIsSound, type SessionListing, type SessionState } from './session-state.ts';

export class SessionFolder {
  /** The folder itself. */
  readonly path: string;
  /** The session's state file: there once anything of the session is landed. */
  readonly stateFile: string;
  private listed: SessionListing | undefined;

  constructor(
    readonly data: string,
    readonly session: string,
  ) {
    this.path = sessionFolder(data, session);
    this.stateFile = sessionStatePath(data, session);
  }

  /** What the folder holds, listed at the first question and kept: a pass that finds little new would spend most of its time listing it again. */
  get listing(): SessionListing {
    this.listed ??= listSession(this.data, this.session);
    return this.listed;
  }

  /** The cursor file of a source that lands in `place` under `cursorKey`. */
  cursorFile(place: Place, cursorKey: string): string {
    return path.join(this.path, this.cursorPlace(place, cursorKey));
  }

  /** Where a file landed now in `place` goes: named by its prefix, the time and its sequence number. */
  landedFile(place: Place, prefix: string, at: Date, seq: number): string {
    return path.join(this.path, placePath(place), landedName(prefix, at, seq));
  }

  /** The cursor file's path inside the session folder, with forward slashes: as a message names it. */
  cursorPlace(place: Place, cursorKey: string): string {
    return `${placePath(place)}/${cursorName(cursorKey)}`;
  }

  /** Whether a collector holds the session's lock at this moment. */
  isLocked(): boolean {
    return fs.existsSync(lockPath(this.data, this.session));
  }

  /** Takes the session's lock (lock.ts), or throws SessionLockedError. */
  lock(): SessionLock {
    return lockSession(this.data, this.session);
  }

  /** The session's state, its counter checked against the landed files listed. */
  state(): SessionState {
    return readSessionState(this.data, this.session, this.listing.landed);
  }

  /** Whether the state file is as a pass writes it (session-state.ts). */
  stateIsSound(): boolean {
    return sessionStateIsSound(this.data, this.session, this.listing.landed);
  }

  /** Whether the state file is there: a session with nothing ever landed has none. */
  hasState(): boolean {
    return fs.existsSync(this.stateFile);
  }

  /** The cursor files listed that `visited` does not hold, with the place of each. */
  *cursorsBesides(visited: ReadonlySet<string>): Generator<{ file: string; place: string }> {
    for (const [place, names] of this.listing.folders) {
      for (const name of names) {
        if (!name.endsWith('.cursor')) continue;
        const file = path.join(this.path, place, name);
        if (!visited.has(file)) yield { file, place };
      }
    }
  }

  /** Removes what a process that died left half-written in the folder; under the session's lock alone. */
  removeLeftTemporaries(): void {
    removeLeftTemporaries(this.path);
    for (const [place, names] of this.listing.folders) removeLeftTemporaries(path.join(this.path, place), names);
  }

  /** Removes the folder when it is empty: made for the lock of a session that landed nothing, it would be a session with no data. */
  removeIfEmpty(): void {
    try {
      fs.rmdirSync(this.path);
    } catch {
      // Not empty after all, or already gone: either way nothing to do.
    }
  }
}

/** The sessions collected into the storage zone `data` before: the folders at its top that hold a session state, by id. */
export function storedSessions(data: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(data);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => !name.startsWith('_') && !name.startsWith('.') && fs.existsSync(sessionStatePath(data, name))).sort();
}
