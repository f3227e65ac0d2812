// Folders read without failing on one that is not there.

import fs from 'node:fs';
import path from 'node:path';

/** The names in a folder, or none when it does not exist. */
export function listFolder(folder: string): string[] {
  try {
    return fs.readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
}

/** What an error of the file system says, without the path and the call it names (Node appends them): `EACCES: permission denied`. */
export function systemErrorText(error: unknown): string {
  const { message, syscall, path: where } = error as NodeJS.ErrnoException;
  const named = syscall !== undefined && where !== undefined ? `, ${syscall} '${where}'` : undefined;
  return named !== undefined && message.endsWith(named) ? message.slice(0, -named.length) : message;
}

/** What is at `where`: nothing (a path through a file leads nowhere too), a folder, a regular file, or something else (a socket, a device). */
export function kindOf(where: string): 'none' | 'folder' | 'file' | 'other' {
  try {
    const stat = fs.statSync(where);
    return stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return 'none';
    throw error;
  }
}

/** The real path of `where`: the part that exists with every symbolic link resolved, the rest appended as given. */
export function realPathOf(where: string): string {
  const absolute = path.resolve(where);
  const rest: string[] = [];
  for (let at = absolute; ; at = path.dirname(at)) {
    try {
      return path.join(fs.realpathSync(at), ...rest.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || at === path.dirname(at)) throw error;
      rest.push(path.basename(at));
    }
  }
}
