// The rows of a `.sd` file that hold a medium (a pasted image, a document):
// the redaction leaves their data out, and the site writes their images.

import type { SessionDataRow } from './format.ts';

const MEDIA_PART = Buffer.from('"k":"media"');

/**
 * The rows of the `.sd` bytes that hold a media part, in order. Only the
 * lines that name one are parsed: most rows hold none. A line that is not
 * JSON is `notJson`'s error, given the byte it starts at.
 */
export function rowsWithMedia(bytes: Buffer, notJson: (start: number) => Error): SessionDataRow[] {
  const rows: SessionDataRow[] = [];
  let lineEnd = -1;
  for (let at = bytes.indexOf(MEDIA_PART); at >= 0; at = bytes.indexOf(MEDIA_PART, at + MEDIA_PART.length)) {
    if (at < lineEnd) continue;
    const start = bytes.lastIndexOf(0x0a, at) + 1;
    lineEnd = bytes.indexOf(0x0a, at);
    if (lineEnd < 0) lineEnd = bytes.length;
    try {
      rows.push(JSON.parse(bytes.toString('utf8', start, lineEnd)) as SessionDataRow);
    } catch {
      throw notJson(start);
    }
  }
  return rows;
}
