// The files one conversation has in an export's bundle, and the one digest
// over them that its site pages are a function of.
//
// An export copies these files from the storage zone (export/export-folder.ts),
// and the digest over them keys the conversation's finished pages in the
// site cache (site/generator/page-store.ts).

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { listFolder } from '../files/folders.ts';
import { sessionDataBeside } from '../landing/layout.ts';
import { landedFilesOfSession } from '../landing/session-state.ts';
import { conversationFolder } from '../session-flow/chain.ts';
import { BUNDLE } from './manifest.ts';

/** A file of a conversation: where it is in the storage zone, and its path inside the bundle. */
export interface ConversationFile {
  readonly source: string;
  readonly relative: string;
}

/**
 * The files of `conversation` in the storage zone `data`, as a bundle holds
 * them: its session's landed files, each with its `.sd` when it has one, and
 * its chain's rounds, branch records and label records. The conversation is
 * its session: the session a chain was built from is in its rounds.
 */
export function conversationFiles(data: string, conversation: string): ConversationFile[] {
  const session = conversation;
  const files: ConversationFile[] = [];
  for (const landed of landedFilesOfSession(data, session)) {
    files.push({ source: landed.path, relative: `${session}/${landed.relative}` });
    const sessionData = sessionDataBeside(landed.path);
    if (fs.existsSync(sessionData)) files.push({ source: sessionData, relative: `${session}/${path.posix.dirname(landed.relative)}/${path.basename(sessionData)}` });
  }
  const chain = conversationFolder(data, conversation);
  for (const part of ['rounds', 'branches']) {
    for (const name of listFolder(path.join(chain, part))) files.push({ source: path.join(chain, part, name), relative: `_conversations/${conversation}/${part}/${name}` });
  }
  for (const branch of listFolder(path.join(chain, 'labels'))) {
    for (const name of listFolder(path.join(chain, 'labels', branch))) files.push({ source: path.join(chain, 'labels', branch, name), relative: `_conversations/${conversation}/labels/${branch}/${name}` });
  }
  return files;
}

/** The path inside an export of a file at `relative` inside its bundle. */
export function exportPathOf(relative: string): string {
  return `${BUNDLE}/${relative}`;
}

/**
 * One digest over the SHA-256 of every bundle file a conversation owns, each
 * with its path inside the export: what the conversation's pages are a
 * function of, and so what its finished pages are kept under
 * (site/generator/page-store.ts). The order the files come in does not
 * matter.
 */
export function conversationInput(files: Iterable<{ readonly file: string; readonly sha256: string }>): string {
  const lines = [...files].map(({ file, sha256 }) => `${sha256}  ${file}\n`);
  return crypto.createHash('sha256').update(lines.sort().join('')).digest('hex');
}
