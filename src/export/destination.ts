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
//   --data     when it exists and is not empty, every entry at its top must be
//              one the storage layout has a place for.
// docs/export-folder.md says the same for users.

import fs from 'node:fs';
import path from 'node:path';
import { listFolder } from '../files/folders.ts';
import { withOpenFile } from '../files/line-reader.ts';
import { SESSION_ENTRIES } from '../landing/layout.ts';
import { writerOfTemporary } from '../files/atomic-file.ts';
import { verifyExportFiles } from '../verify/export.ts';
import { TarReader } from '../verify/tar-reader.ts';
import { ZstdDecompression } from '../files/zstd.ts';
import { ARCHIVE_TOP } from '../bundle/archive.ts';
import { EXPORT_MARKER, EXPORT_MARKER_SCHEMA } from './export-folder.ts';
import { unchangedSinceRecorded } from './folder-record.ts';
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
  const dataRefusal = storageZoneRefusal(data);
  if (dataRefusal !== undefined) return `--data ${places.data}: ${dataRefusal}`;
  for (const { what, where } of read) {
    const relation = relationOf(out, where);
    if (relation !== undefined) return `--out ${places.out}: it ${relation} ${what} (${where}); an export replaces its folder whole, so it goes in a folder of its own`;
  }
  const outRefusal = earlierExportRefusal(out, () => unchangedSinceRecorded(places.data, places.out));
  if (outRefusal !== undefined) return `--out ${places.out}: ${outRefusal}`;
  if (places.archive !== undefined) {
    const archive = realPathOf(places.archive);
    for (const { what, where } of [...read, { what: 'the export folder', where: out }]) {
      const relation = relationOf(archive, where);
      if (relation === 'is' || relation === 'is inside') return `--archive ${places.archive}: it ${relation} ${what} (${where}); the archive goes outside what the export reads and writes`;
    }
    const archiveRefusal = earlierArchiveRefusal(archive);
    if (archiveRefusal !== undefined) return `--archive ${places.archive}: ${archiveRefusal}`;
  }
  return undefined;
}

/** The real path of `where`: the part that exists with every symbolic link resolved, the rest appended as given. */
export function realPathOf(where: string): string {
  const absolute = path.resolve(where);
  const rest: string[] = [];
  for (let at = absolute; ; at = path.dirname(at)) {
    try {
      return path.join(fs.realpathSync(at), ...rest.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || at === path.dirname(at)) throw error;
      rest.push(path.basename(at));
    }
  }
}

function relationOf(place: string, other: string): 'is' | 'is inside' | 'holds' | undefined {
  if (place === other) return 'is';
  if (other.startsWith(`${place.replace(/\/$/, '')}${path.sep}`)) return 'holds';
  if (place.startsWith(`${other.replace(/\/$/, '')}${path.sep}`)) return 'is inside';
  return undefined;
}

function kindOf(where: string): 'none' | 'folder' | 'file' | 'other' {
  try {
    const stat = fs.statSync(where);
    return stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw error;
  }
}

/** Why `data` cannot be used as a data folder: not empty and not a storage zone; undefined when it can. */
export function storageZoneRefusal(data: string): string | undefined {
  const kind = kindOf(data);
  if (kind === 'none') return undefined;
  if (kind !== 'folder') return 'it is not a folder';
  for (const name of listFolder(data)) {
    // Folders and files of the tool's own (`_conversations`, `_site-cache`, the export lock…), and temporary files a crash left.
    if (name.startsWith('_') || writerOfTemporary(name) !== undefined) continue;
    const entries = kindOf(path.join(data, name)) === 'folder' ? listFolder(path.join(data, name)) : [];
    if (!entries.some((entry) => SESSION_ENTRIES.has(entry))) return `it is not empty and not a Sessionizer storage zone (${name} is nothing the storage layout holds); give a new folder or an earlier --data`;
  }
  return undefined;
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
