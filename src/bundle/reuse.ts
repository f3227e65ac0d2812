// Reuse of the previous export's files, so that a second export after one
// conversation changed copies and hashes only what changed.
//
// An export folder holds about twice its sources, and copying it costs about
// as much as hashing it again for the manifest. Almost all of it is
// write-once evidence (landed files, `.sd`, rounds,
// branch and label records) that an incremental export would copy and hash
// unchanged, every time.
//
// A file is reused only when three things still hold from the export that
// wrote it, each checked by the file's stamp (device, inode, size, and
// modification and change times in nanoseconds; the change time as the
// record settled it, files/file-stamp.ts):
//   - the storage-zone file it was copied from is the same file, unchanged;
//   - the previous export's copy is the same file, unchanged since it was
//     hashed, so its manifest digest still describes it;
//   - it sits at the same path in the export.
// Then the new export gets a hard link to the previous export's copy, and its
// digest without reading it. The previous export stays whole until the new
// one replaces it, so an interrupted export still leaves it intact, and it is
// only removed, never written: every writer of the export folder creates new
// files (temporary name, then rename), which never changes a linked inode.
//
// Anything else, including a file system that refuses hard links, is copied
// and hashed as the first time. The record of stamps is derived and
// disposable: it lives in the data folder, outside every export and digest,
// under `_exports/`, one file per export folder; a missing or damaged one only
// means a full copy. So it is replaced without a flush: a crash that loses
// it, or leaves the one before, costs the next export a copy, never a wrong
// digest, since every entry is trusted only while both stamps still hold.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KnownFolders, replaceWithoutFlush } from '../files/atomic-file.ts';
import { compareStamps, settledMarkerOf, settledTime, stampFromText, stampOf, stampText, type FileStamp, type StampsRecord } from '../files/file-stamp.ts';
import type { ManifestEntry } from './manifest.ts';

const REUSE_SCHEMA = 'export-reuse/1';

interface ReuseEntry {
  /** The storage-zone file the export's copy came from. */
  readonly source: string;
  /** The stamps of the source and of the export's copy, as text (stampText). */
  readonly sourceStamp: string;
  readonly exportedStamp: string;
  readonly sha256: string;
}

/** Where the data folder `data` keeps a record of the export folder `out`, of the kind `extension` names. */
export function exportRecordOf(data: string, out: string, extension: string): string {
  return path.join(data, '_exports', `${crypto.createHash('sha256').update(path.resolve(out)).digest('hex').slice(0, 16)}.${extension}`);
}

export class ExportReuse {
  private readonly previous: Map<string, ReuseEntry>;
  /**
   * Files placed in the new export, by path inside it: the storage file each
   * came from, and the stamp of the placed copy. A later step may replace a
   * placed file (a redaction does): its stamp then differs, and neither its
   * digest nor its reuse record is taken from here any more.
   */
  private readonly placed = new Map<string, { source: string; sourceStamp: FileStamp; target: string; placedStamp: FileStamp | undefined }>();
  /** The digests of the files linked from the earlier export, by path inside the new one. */
  private readonly known = new Map<string, string>();
  // Most files share a folder with the one before, and a second export places every file again.
  private readonly folders = new KnownFolders();
  reused = 0;
  copied = 0;

  private constructor(
    private readonly record: string,
    private readonly out: string,
    previous: Map<string, ReuseEntry>,
    /** When the record's files last changed by the export that wrote it and the removal of the one before (file-stamp.ts, StampsRecord). */
    private readonly settled: bigint | undefined,
  ) {
    this.previous = previous;
  }

  /** The reuse record of the export folder `out`, kept in the data folder. */
  static load(data: string, out: string): ExportReuse {
    const record = exportRecordOf(data, out, 'json');
    const previous = new Map<string, ReuseEntry>();
    // Before the record: a marker written after it was read would settle a newer record than this one.
    const settled = settledTime(settledMarkerOf(record));
    try {
      const parsed = JSON.parse(fs.readFileSync(record, 'utf8')) as { schema?: string; out?: string; files?: Record<string, ReuseEntry> };
      if (parsed.schema === REUSE_SCHEMA && parsed.out === path.resolve(out) && parsed.files) {
        for (const [relative, entry] of Object.entries(parsed.files)) previous.set(relative, entry);
      }
    } catch {
      // No record, or a damaged one: everything is copied, as the first time.
    }
    return new ExportReuse(record, path.resolve(out), previous, settled);
  }

  /**
   * Puts the storage file `source` at `relative` inside the new export folder
   * `root`: a hard link to the previous export's copy when nothing changed,
   * else a copy. Returns the bytes copied: none for a link.
   */
  place(source: string, root: string, relative: string): number {
    const target = path.join(root, relative);
    this.folders.ensure(path.dirname(target));
    const sourceStamp = stampOf(source);
    if (sourceStamp === undefined) throw new Error(`${source}: not a readable regular file`);
    const before = this.previous.get(relative);
    const exported = before && before.source === source && compareStamps(sourceStamp, stampFromText(before.sourceStamp)) === 'same' ? stampOf(path.join(this.out, relative)) : undefined;
    if (before && exported !== undefined && compareStamps(exported, stampFromText(before.exportedStamp), this.settled) === 'same') {
      try {
        fs.linkSync(path.join(this.out, relative), target);
        this.known.set(relative, before.sha256);
        // The link is the inode just checked, the same bytes; making it moved only the inode's change time.
        this.placed.set(relative, { source, sourceStamp, target, placedStamp: exported });
        this.reused++;
        return 0;
      } catch {
        // A file system without hard links, or another volume: copy instead.
      }
    }
    // A clone where the file system can make one: no bytes written and no
    // space taken until either side changes, and a change to the copy never
    // reaches the storage zone, as it would through a hard link. On Linux
    // the copy clones by itself where it can (btrfs, with this flag or
    // without it); the flag asks for a clone where the plain copy would not
    // make one (macOS). On ext4 it is a copy either way.
    fs.copyFileSync(source, target, fs.constants.COPYFILE_FICLONE);
    const placedStamp = stampOf(target);
    this.placed.set(relative, { source, sourceStamp, target, placedStamp });
    this.copied++;
    return placedStamp !== undefined ? Number(placedStamp.size) : fs.statSync(target).size;
  }

  /**
   * The digests and sizes already known of files of the new export, by path
   * inside it, for the manifest: those of the files linked from the earlier
   * export and not replaced since by a later step (a redaction). A link is
   * compared with the stamp checked before it was made, which differs only
   * in the change time the link itself moved: that saves a `stat` of each
   * of the thousands of links a second export makes.
   */
  knownOfPlaced(): { digests: ReadonlyMap<string, string>; sizes: ReadonlyMap<string, number> } {
    const digests = new Map<string, string>();
    const sizes = new Map<string, number>();
    for (const [relative, sha256] of this.known) {
      const placed = this.placed.get(relative)!;
      if (placed.placedStamp === undefined || compareStamps(stampOf(placed.target), placed.placedStamp) === 'different') continue;
      digests.set(relative, sha256);
      sizes.set(relative, Number(placed.placedStamp.size));
    }
    return { digests, sizes };
  }

  /**
   * The record of the stamps of the export now in place at `out`, for the
   * next export: each file's stamp as it was placed, settled once the export
   * it replaced is removed (file-stamp.ts, StampsRecord).
   */
  stampsRecord(entries: readonly ManifestEntry[]): StampsRecord {
    return { marker: settledMarkerOf(this.record), save: () => this.save(entries) };
  }

  private save(entries: readonly ManifestEntry[]): void {
    const files: Record<string, ReuseEntry> = {};
    for (const entry of entries) {
      const placed = this.placed.get(entry.path);
      // A file a later step replaced (a redaction) is another inode, which
      // the next export tells from the one placed here by its stamp.
      if (placed === undefined || placed.placedStamp === undefined) continue;
      files[entry.path] = { source: placed.source, sourceStamp: stampText(placed.sourceStamp), exportedStamp: stampText(placed.placedStamp), sha256: entry.sha256 };
    }
    fs.mkdirSync(path.dirname(this.record), { recursive: true });
    replaceWithoutFlush(this.record, `${JSON.stringify({ schema: REUSE_SCHEMA, out: this.out, files })}\n`);
  }
}
