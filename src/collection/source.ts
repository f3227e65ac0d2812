// What an adapter hands the collector: the sessions it found and, for each,
// the files that belong to it and where each lands. The collector needs no
// knowledge of the runtime beyond this.

import type { ToolDescription } from '../model/tools.ts';
import type { LandedKind } from '../landing/landed-file.ts';
import type { Place } from '../landing/layout.ts';
import type { Converter } from '../session-data/derive.ts';

/**
 * append    the file only grows; each pass lands the complete lines added since the last
 * snapshot  the file is one document that may be rewritten; each new version lands whole
 */
export type SourceNature = 'append' | 'snapshot';

export interface CollectableSource {
  /** Absolute path. */
  readonly path: string;
  /** Path under the source root, with forward slashes: the landed header's `src`. */
  readonly relative: string;
  readonly session: string;
  /** The stream or workflow run folder it lands in. */
  readonly place: Place;
  /** First part of the landed file names: transcript, meta, journal, manifest, script. */
  readonly prefix: string;
  /** The cursor's name in the place folder, without `.cursor`. Unique within the folder. */
  readonly cursorKey: string;
  readonly kind: LandedKind;
  readonly nature: SourceNature;
}

export interface DiscoveredSession {
  readonly id: string;
  /** Every source folder (project folder) the session has files in. */
  readonly folders: string[];
  /** The folder holding the main transcript; undefined when that transcript was pruned. */
  readonly primary?: string;
  readonly sources: CollectableSource[];
}

export interface Discovery {
  readonly root: string;
  readonly sessions: DiscoveredSession[];
  /** Things that hid part of the source tree, such as an unreadable folder. */
  readonly warnings: string[];
}

export interface Adapter {
  /** Adapter name and version, written into every landed header: claude-code/0.1.0. */
  readonly name: string;
  /** Where a worker thread loads this adapter from: a module URL and the name it is exported as. */
  readonly location: { readonly module: string; readonly export: string };
  readonly converter: Converter;
  /** The record id of one source record, used as the cursor's diagnostic anchor. */
  recordId(line: Buffer): string;
  /** A tool use of this runtime, by its tool's name and input, in the model's words (model/tools.ts). */
  describeTool?(name: string, input: unknown): ToolDescription;
  /** What this runtime calls each of the model's words, and where it records it (`sessionizer glossary`). */
  readonly glossary?: { readonly dialect: string; readonly entries: Readonly<Record<string, { readonly native: string; readonly where: string }>> };
}
