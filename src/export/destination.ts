// Where an export may write: checked before anything is collected, so that
// an export never deletes or replaces what this tool did not write.
//
// An export replaces its folder whole and its archive whole, and writes
// session folders into its data folder. So, compared by real path (every
// symbolic link of the part that exists resolved):
//   --out      must not be, hold or lie inside the source, the data folder or
//              a merged export; when it exists and is not empty it must be an
//              earlier export of this tool: one with the marker file that every
//              export writes and nothing its manifest does not list (or whose
//              folders are all as the last export into it recorded them,
//              folder-record.ts), or one made before the marker (none) that
//              verifies whole;
//   --archive  must not be or lie inside the source, the data folder or --out;
//              when it exists it must be an earlier archive of this tool: its
//              first tar entries, decompressed from its first frames, are the
//              top folder `export/` and then the marker, or `export/bundle/`
//              for an archive made before the marker;
//   --data     must be a data folder the tool made, an empty folder or none,
//              and never part of an export (data-folder.ts).
// `restore --out` adds a project folder and a new transcript, never replacing
// one, so it is refused only where a new folder does harm: the data folder
// or inside it, and a path that is not a folder.
// docs/export-folder.md says the same for users.

import fs from 'node:fs';
import path from 'node:path';
import { kindOf, listFolder, realPathOf } from '../files/folders.ts';
import { withOpenFile } from '../files/line-reader.ts';
import { verifyExportFiles } from '../verify/export.ts';
import { TarReader } from '../verify/tar-reader.ts';
import { ZstdDecompression } from '../files/zstd.ts';
import { ARCHIVE_TOP } from '../bundle/archive.ts';
import { EXPORT_MARKER, EXPORT_MARKER_SCHEMA } from './export-folder.ts';
import { unchangedSinceRecorded } from './folder-record.ts';
import { dataFolderRefusal } from './data-folder.ts';
import { BUNDLE, exportFiles, MANIFEST, META_FILES, type Manifest } from '../bundle/manifest.ts';

/** The places an export was asked to use; `source` and `merged` are what it reads. */
export interface ExportPlaces {
  readonly out: string;
  readonly archive?: string;
  readonly data: string;
  readonly source?: string;
  readonly merged?: readonly string[];
}

/** Why the export must not run with these places, in one line naming the folder or file; undefined when it may. */
export function refusalOf(places: ExportPlaces): string | undefined {
  const data = realPathOf(places.data);
  const out = realPathOf(places.out);
  const read: { what: string; where: string }[] = [
    ...(places.source !== undefined ? [{ what: 'the source', where: realPathOf(places.source) }] : []),
    { what: 'the data folder', where: data },
    ...(places.merged ?? []).map((input) => ({ what: 'an export to merge', where: realPathOf(input) })),
  ];
  const dataRefusal = dataFolderRefusal(data, 'create');
  if (dataRefusal !== undefined) return `--data ${places.data}: ${dataRefusal}`;
  for (const { what, where } of read) {
    const relation = relationOf(out, where);
    if (relation !== undefined) return `--out ${places.out}: it ${relation} ${what} (${where}); an export replaces its folder whole, so it goes in a folder of its own`;
  }
  const outRefusal = earlierExportRefusal(out, () => unchangedSinceRecorded(places.data, places.out));
  if (outRefusal !== undefined) return `--out ${places.out}: ${outRefusal}`;
  // The export is written beside its folder and renamed into place, in the folder that holds it (made when it is not there).
  const outFolder = unwritable(nearestFolder(path.dirname(out)));
  if (outFolder !== undefined) return `--out ${places.out}: ${outFolder}; give --out a folder where you can write`;
  if (places.archive !== undefined) {
    const archive = realPathOf(places.archive);
    for (const { what, where } of [...read, { what: 'the export folder', where: out }]) {
      const relation = relationOf(archive, where);
      if (relation === 'is' || relation === 'is inside') return `--archive ${places.archive}: it ${relation} ${what} (${where}); the archive goes outside what the export reads and writes`;
    }
    const archiveRefusal = earlierArchiveRefusal(archive);
    if (archiveRefusal !== undefined) return `--archive ${places.archive}: ${archiveRefusal}`;
    // Checked now, not found once the export folder is written: the archive is written beside its place and renamed into it.
    const folder = path.dirname(archive);
    const kind = kindOf(folder);
    if (kind === 'none') return `--archive ${places.archive}: its folder ${folder} does not exist; make it first, or give a file in a folder that exists`;
    if (kind !== 'folder') return `--archive ${places.archive}: ${folder} is not a folder; give a file in a folder that exists`;
    const archiveFolder = unwritable(folder);
    if (archiveFolder !== undefined) return `--archive ${places.archive}: ${archiveFolder}; give a file in a folder where you can write`;
  }
  return undefined;
}

/** `where`, or the nearest folder above it that exists. */
function nearestFolder(where: string): string {
  let at = where;
  while (kindOf(at) === 'none' && at !== path.dirname(at)) at = path.dirname(at);
  return at;
}

/** Why nothing can be written in `folder` (read-only, not permitted), or undefined when it can. */
function unwritable(folder: string): string | undefined {
  try {
    fs.accessSync(folder, fs.constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return `its folder ${folder} cannot be written (${code === 'EROFS' ? 'its file system is read-only' : code === 'EACCES' || code === 'EPERM' ? 'permission is denied' : (error as Error).message})`;
  }
}

function relationOf(place: string, other: string): 'is' | 'is inside' | 'holds' | undefined {
  if (place === other) return 'is';
  if (other.startsWith(`${place.replace(/\/$/, '')}${path.sep}`)) return 'holds';
  if (place.startsWith(`${other.replace(/\/$/, '')}${path.sep}`)) return 'is inside';
  return undefined;
}

/** Why `restore` must not write its transcript into `out`, with `data` its data folder; undefined when it may. */
export function restoreRefusal(out: string, data: string): string | undefined {
  const where = realPathOf(out);
  const zone = realPathOf(data);
  const relation = relationOf(where, zone);
  if (relation === 'is' || relation === 'is inside') return `it ${relation} the data folder (${zone}), which holds only what the tool lands and derives; give a projects folder of Claude Code, or a new folder`;
  const kind = kindOf(where);
  return kind === 'none' || kind === 'folder' ? undefined : 'it is not a folder';
}

/** Why `out` may not be replaced by an export; `unchanged` says whether it holds just what the last export into it left (folder-record.ts), which spares listing it. */
function earlierExportRefusal(out: string, unchanged: () => boolean): string | undefined {
  const kind = kindOf(out);
  if (kind === 'none') return undefined;
  if (kind !== 'folder') return 'it is not a folder';
  if (listFolder(out).length === 0) return undefined;
  const replacing = 'an export replaces its folder whole; give a new folder, or move these files away';
  if (kindOf(path.join(out, EXPORT_MARKER)) !== 'file') {
    // Made before exports carried the marker: replaced only when its own manifest accounts for every byte in it.
    if (kindOf(path.join(out, MANIFEST)) !== 'file') return `it is not empty and not an export of this tool (no ${EXPORT_MARKER}); ${replacing}`;
    const report = verifyExportFiles(out, {});
    if (report.problems.length > 0 || report.rootDigest === undefined) return `it has no ${EXPORT_MARKER} and does not verify as an earlier export (${report.problems[0]?.path ?? 'root-digest.txt'}: ${report.problems[0]?.what ?? 'missing'}); ${replacing}`;
    return undefined;
  }
  if (!fs.readFileSync(path.join(out, EXPORT_MARKER), 'utf8').startsWith(`${EXPORT_MARKER_SCHEMA}\n`)) return `its ${EXPORT_MARKER} is not one this tool writes; ${replacing}`;
  if (unchanged()) return undefined;
  let listed: Set<string>;
  try {
    listed = new Set((JSON.parse(fs.readFileSync(path.join(out, MANIFEST), 'utf8')) as Manifest).files.map((entry) => entry.path));
  } catch {
    return `it is an export of this tool whose ${MANIFEST} cannot be read, so what else it holds is unknown; ${replacing}`;
  }
  const { files, strange } = exportFiles(out);
  const extra = [...files.filter((file) => !listed.has(file) && !META_FILES.has(file)), ...strange.map((entry) => entry.path)];
  if (extra.length > 0) return `it is an export of this tool, but ${extra[0]}${extra.length > 1 ? ` and ${extra.length - 1} more` : ''} is not in its manifest; ${replacing}`;
  return undefined;
}

/** Enough of the archive's start for its first tar headers: they are in its first frames. */
const ARCHIVE_HEAD_BYTES = 1 << 20;

function earlierArchiveRefusal(archive: string): string | undefined {
  const kind = kindOf(archive);
  if (kind === 'none') return undefined;
  if (kind !== 'file') return 'it is not a regular file';
  const names = firstTarNames(archive, 2);
  const earlier = names[0] === `${ARCHIVE_TOP}/` && (names[1] === `${ARCHIVE_TOP}/${EXPORT_MARKER}` || names[1] === `${ARCHIVE_TOP}/${BUNDLE}/`);
  return earlier ? undefined : 'it exists and is not an archive this tool wrote (its first entries are not export/ and the export marker); give a new file name, or move it away';
}

/** The names of the first `count` tar entries in the zstd-compressed file, as far as its first megabyte holds them; fewer when it is no such archive. */
function firstTarNames(file: string, count: number): string[] {
  const head = Buffer.alloc(ARCHIVE_HEAD_BYTES);
  const read = withOpenFile(file, (descriptor) => fs.readSync(descriptor, head, 0, head.length, 0));
  const names: string[] = [];
  const reader = new TarReader((entry) => {
    names.push(entry.name);
    return undefined;
  });
  try {
    new ZstdDecompression().push(head.subarray(0, read), (piece) => {
      reader.push(piece);
      return names.length < count;
    });
  } catch {
    // Not zstd, or not a tar GNU tar would extract: no archive of this tool's, as far as it was read.
  }
  return names.slice(0, count);
}
