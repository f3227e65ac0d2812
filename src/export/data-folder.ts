// What `--data DIR` may be, for every command that takes it: a folder the
// tool made as a data folder, or an empty one, and never a folder of an
// export. A data folder receives cursors, session state, caches and landed
// lines; written into an export, they break it, and written into a folder of
// anyone's, they mix with files the tool did not write.
//
// Compared by real path (every symbolic link of the part that exists
// resolved), `--data DIR` is refused when:
//   - DIR or a folder above it is an export folder: it holds the export
//     marker, or (an export made before the marker) a manifest, a root digest
//     and a bundle folder;
//   - DIR exists and is not a folder;
//   - DIR holds the data folder's marker with a text this tool does not write;
//   - the command writes into DIR and this user cannot write in it (or, when
//     it is not there yet, in the folder above it where it is made);
//   - DIR has no marker, is not empty, and is not a data folder made before
//     the marker: every entry at its top must be a session folder (holding an
//     entry of SESSION_ENTRIES), one of the tool's own entries (a name that
//     starts with `_`) or a temporary file of the tool's naming, and at least
//     one session folder must hold its session state, which collection writes
//     and no export holds; a folder with no session folder at all is taken
//     when its other entries are the tool's.
// A command that creates the data folder (collect, export) writes the marker
// into it, and one that writes into a data folder made before the marker
// (collect, parse, fork, label, export) adds it, so that the folder is known
// from its marker alone from then on.
// docs/formats.md says the same for users.

import fs from 'node:fs';
import path from 'node:path';
import { replaceFile, writerOfTemporary } from '../files/atomic-file.ts';
import { kindOf, listFolder, realPathOf, systemErrorText } from '../files/folders.ts';
import { DATA_MARKER, DATA_MARKER_SCHEMA, SESSION_ENTRIES, SESSION_STATE } from '../landing/layout.ts';
import { BUNDLE, MANIFEST, ROOT_DIGEST } from '../bundle/manifest.ts';
import { EXPORT_MARKER } from './export-folder.ts';

const DATA_MARKER_TEXT = `${DATA_MARKER_SCHEMA}\nThis folder is a Sessionizer data folder: landed transcripts, their .sd files, round chains and caches.\nSessionizer takes --data only from a folder with this file, an empty folder, or one made before it (docs/formats.md).\n`;

/** What a command does with its data folder: reads it only; writes into it; or, creating it when it is not there, lands into it. */
export type DataFolderUse = 'read' | 'write' | 'create';

/** What `--data` is, once accepted: not there yet, an empty folder, a folder with the marker, or a data folder made before the marker. */
type Accepted = 'none' | 'empty' | 'marked' | 'unmarked';

/** Why `data` may not be a data folder for a command that uses it as `use` says, in one line that names it and says what to do; undefined when it may. */
export function dataFolderRefusal(data: string, use: DataFolderUse): string | undefined {
  const judged = judge(data, use);
  return typeof judged === 'object' ? judged.refusal : undefined;
}

/**
 * Checks `data` for a command that uses it as `use` says, and marks it when
 * the command writes into it: creates it with its marker (`create`) when it
 * is not there, and adds the marker to an empty folder (`create`) or to a
 * data folder made before the marker (`write`, `create`). Returns the
 * refusal, in one line, and touches nothing when `data` may not be used.
 */
export function claimDataFolder(data: string, use: DataFolderUse): string | undefined {
  const judged = judge(data, use);
  if (typeof judged === 'object') return judged.refusal;
  const marks = judged === 'unmarked' ? use !== 'read' : judged !== 'marked' && use === 'create';
  if (!marks) return undefined;
  fs.mkdirSync(data, { recursive: true });
  replaceFile(path.join(data, DATA_MARKER), DATA_MARKER_TEXT);
  return undefined;
}

function judge(data: string, use: DataFolderUse): Accepted | { refusal: string } {
  let judged: Accepted | { refusal: string };
  try {
    judged = judgeReadable(data);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === undefined) throw error;
    return { refusal: `it cannot be read (${systemErrorText(error)}); give a data folder this user can read and write` };
  }
  if (typeof judged === 'object' || use === 'read' || (judged === 'none' && use === 'write')) return judged;
  // What the command writes first: the folder, or, when it is not there yet, the nearest folder above it, where it is made.
  let written = realPathOf(data);
  while (kindOf(written) === 'none') written = path.dirname(written);
  try {
    fs.accessSync(written, fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    return { refusal: `this user cannot write in ${written === realPathOf(data) ? 'it' : written} (${systemErrorText(error)}); give a data folder this user can write` };
  }
  return judged;
}

function judgeReadable(data: string): Accepted | { refusal: string } {
  const real = realPathOf(data);
  const giveAnother = 'give the data folder you collected into, or a new folder';
  for (let folder = real; ; folder = path.dirname(folder)) {
    const exportFolder = exportMarkOf(folder);
    if (exportFolder !== undefined) {
      return { refusal: folder === real ? `it is an export folder (it holds ${exportFolder}); a data folder is never part of an export: ${giveAnother}` : `it is inside the export folder ${folder} (which holds ${exportFolder}); a data folder is never part of an export: ${giveAnother}` };
    }
    if (folder === path.dirname(folder)) break;
  }
  const kind = kindOf(real);
  if (kind === 'none') {
    let above = path.dirname(real);
    while (kindOf(above) === 'none') above = path.dirname(above);
    return kindOf(above) === 'folder' ? 'none' : { refusal: `it lies under ${above}, which is not a folder; ${giveAnother}` };
  }
  if (kind !== 'folder') return { refusal: `it is ${kind === 'file' ? 'a file' : 'not a folder'}; ${giveAnother}` };
  const marker = path.join(real, DATA_MARKER);
  if (kindOf(marker) !== 'none') {
    let text = '';
    try {
      text = fs.readFileSync(marker, 'utf8');
    } catch {
      // A marker that cannot be read is no marker this tool wrote.
    }
    return text.startsWith(`${DATA_MARKER_SCHEMA}\n`) ? 'marked' : { refusal: `its ${DATA_MARKER} is not one this tool writes; ${giveAnother}` };
  }
  const names = listFolder(real);
  if (names.length === 0) return 'empty';
  let sessionFolders = 0;
  let withState = 0;
  for (const name of names) {
    // The tool's own folders and files (`_conversations`, `_site-cache`, the export lock…), and temporary files a crash left.
    if (name.startsWith('_') || writerOfTemporary(name) !== undefined) continue;
    const entries = kindOf(path.join(real, name)) === 'folder' ? listFolder(path.join(real, name)) : [];
    if (!entries.some((entry) => SESSION_ENTRIES.has(entry))) return { refusal: `it is not empty and not a Sessionizer storage zone (${name} is nothing the storage layout holds); ${giveAnother}` };
    sessionFolders++;
    if (entries.includes(SESSION_STATE)) withState++;
  }
  if (sessionFolders > 0 && withState === 0) return { refusal: `it has the layout of a data folder but no session state in any session folder, as a copy of an export's bundle has; ${giveAnother}` };
  return 'unmarked';
}

/** The file that makes `folder` an export folder, when it is one: its marker, or the manifest of an export made before the marker. */
function exportMarkOf(folder: string): string | undefined {
  if (kindOf(path.join(folder, EXPORT_MARKER)) === 'file') return EXPORT_MARKER;
  if (kindOf(path.join(folder, MANIFEST)) === 'file' && kindOf(path.join(folder, ROOT_DIGEST)) === 'file' && kindOf(path.join(folder, BUNDLE)) === 'folder') return MANIFEST;
  return undefined;
}
