// The highlight cache: shiki's output for one piece of code, on disk, named
// by the SHA-256 of its language and text, so that branch pages that repeat a
// block, and a second export of the same conversations, highlight nothing
// again. It lives outside the export: it is not evidence.

import crypto from 'node:crypto';
import path from 'node:path';

export const CACHE_VARIABLE = 'SESSIONIZER_SITE_CACHE';

/** Above this, code is shown as plain escaped text: highlighting time and HTML grow with it. */
export const HIGHLIGHT_LIMIT = 24 * 1024;

export function highlightKey(language: string, code: string): string {
  return crypto.createHash('sha256').update(language).update('\0').update(code).digest('hex');
}

export function cacheFile(cache: string, key: string): string {
  return path.join(cache, key.slice(0, 2), `${key}.html`);
}
