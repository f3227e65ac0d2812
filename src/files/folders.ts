// Folders read without failing on one that is not there.

import fs from 'node:fs';

/** The names in a folder, or none when it does not exist. */
export function listFolder(folder: string): string[] {
  try {
    return fs.readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
}
