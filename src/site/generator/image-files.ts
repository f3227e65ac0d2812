// Writes the image files of a conversation: every medium of its `.sd` rows
// that the site shows as an image (models/images.ts), decoded from the base64
// the bundle holds, as site/images/<sha256>.<extension>. A page names the
// same file from the same part (models/parts.ts), so the two agree by
// construction, and the site stays a function of the bundle alone.
//
// Written beside the evidence pages (evidence-pages.ts), in the export's
// process, while the site's children render: the images are a function of
// the conversation's bundle files, as its pages are, and are kept in the
// cache of finished pages and placed with them. A file is named by its
// bytes, so an image used many times, in one conversation or in several, is
// one file, written once.

import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { sessionDataBeside } from '../../landing/layout.ts';
import { landedFilesOfSession } from '../../landing/session-state.ts';
import type { MediaPart } from '../../session-data/format.ts';
import { rowsWithMedia } from '../../session-data/media-rows.ts';
import { IMAGE_FOLDER, imageOfPart } from '../models/images.ts';

/** An image file of the site, from the site root, with the SHA-256 of its bytes (which its name holds). */
export interface WrittenImage {
  readonly file: string;
  readonly sha256: string;
}

/** What a medium's part is written as in a `.sd` row; a row without it holds no medium, and is not parsed. */

/**
 * Writes the image files of the conversation `conversation` of `bundle`
 * under the site folder `out`, each once, and returns them in the order of
 * their first use. A file already under `out` has these bytes, as its name
 * is their digest, and is not written again.
 */
export function writeImageFiles(bundle: string, out: string, conversation: string): WrittenImage[] {
  const written = new Map<string, WrittenImage>();
  for (const landed of landedFilesOfSession(bundle, conversation)) {
    for (const part of mediaPartsOf(sessionDataBeside(landed.path))) {
      const image = imageOfPart(part);
      if (!image.shown || written.has(image.file)) continue;
      const target = path.join(out, image.file);
      if (!fs.existsSync(target)) {
        fs.mkdirSync(path.dirname(target), { recursive: true });
        // Under a temporary name first: a file of this name is always whole.
        const temporary = `${target}.${process.pid}-${threadId}.tmp`;
        fs.writeFileSync(temporary, image.bytes);
        fs.renameSync(temporary, target);
      }
      written.set(image.file, { file: image.file, sha256: image.sha256 });
    }
  }
  return [...written.values()];
}

/** The media parts of the rows of a `.sd` file, in order; none when it has none, or no `.sd` is there. */
function mediaPartsOf(sessionData: string): MediaPart[] {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(sessionData);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parts: MediaPart[] = [];
  for (const row of rowsWithMedia(bytes, (start) => new Error(`${sessionData}: the line at byte ${start} is not JSON, so its images cannot be written`))) {
    for (const part of row.parts ?? []) if (part.k === 'media') parts.push(part);
  }
  return parts;
}

/** Whether a file of the site, from its root, is an image file: named by its bytes, so that a second copy of it is the same file. */
export function isImageFile(file: string): boolean {
  return file.startsWith(`${IMAGE_FOLDER}/`);
}
