// Placing a site file that is already written somewhere else: the pages of
// a helper child, a finished entry of the cache, a page kept from the
// earlier render. A page is never written in place once it is written (a
// page rendered again is a new file), so two names for one file are safe.

import fs from 'node:fs';
import path from 'node:path';

/** Puts `from/file` at `to/file`: a hard link where the two are on one file system, else a copy. */
export function linkOrCopy(from: string, to: string, file: string): void {
  const target = path.join(to, file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  try {
    fs.linkSync(path.join(from, file), target);
  } catch (error) {
    if (!['EXDEV', 'EPERM', 'ENOTSUP', 'EMLINK'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    fs.copyFileSync(path.join(from, file), target);
  }
}

/**
 * Puts `from/file` at `to/file` as linkOrCopy does, unless a file is there
 * already: for a file named by the digest of its bytes (an image,
 * image-files.ts), which two conversations may both hold, and which is then
 * the same bytes.
 */
export function linkOrCopyNamedByBytes(from: string, to: string, file: string): void {
  if (!fs.existsSync(path.join(to, file))) linkOrCopy(from, to, file);
}
