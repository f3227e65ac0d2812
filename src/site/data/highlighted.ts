// The highlight cache: shiki's output for one piece of code, on disk, named
// by the SHA-256 of its language and text, so that branch pages that repeat a
// block, and a second export of the same conversations, highlight nothing
// again. It lives outside the export: it is not evidence.

import crypto from 'node:crypto';
import path from 'node:path';
import { listFolder } from '../../landing/session-state.ts';

export const CACHE_VARIABLE = 'SESSIONIZER_SITE_CACHE';

/** Above this, code is shown as plain escaped text: highlighting time and HTML grow with it. */
export const HIGHLIGHT_LIMIT = 24 * 1024;

export function highlightKey(language: string, code: string): string {
  return crypto.createHash('sha256').update(language).update('\0').update(code).digest('hex');
}

export function cacheFile(cache: string, key: string): string {
  return path.join(cache, key.slice(0, 2), `${key}.html`);
}

/**
 * How many highlighted blocks the cache holds. Only the folders cacheFile
 * names are listed: the cache folder also holds the site's finished pages,
 * and a walk through them took 2.1 s of a second export of the 1 GB
 * benchmark corpus.
 */
export function cachedBlocks(cache: string): number {
  let count = 0;
  for (const folder of listFolder(cache)) {
    if (!/^[0-9a-f]{2}$/.test(folder)) continue;
    for (const name of listFolder(path.join(cache, folder))) if (/^[0-9a-f]{64}\.html$/.test(name)) count++;
  }
  return count;
}
