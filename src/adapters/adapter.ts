// What an adapter of one runtime implements, and all that the rest of the
// pipeline knows of that runtime: where its sessions are, the sessions it
// found and, for each, the files that belong to it and where each lands; how
// a landed record becomes `.sd`; what the runtime calls each of the model's
// words; and how a branch is written back as a transcript it can resume.

import type { LandedKind } from '../landing/landed-file.ts';
import type { Place } from '../landing/layout.ts';
import type { Converter } from '../session-data/derive.ts';
import type { ToolDescription } from '../model/tools.ts';

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

/** A folder or file under the source root that could not be read, so that what it holds was not collected. */
export interface UnreadableSource {
  readonly path: string;
  /** What the system said, without the path: `EACCES: permission denied`. */
  readonly error: string;
}

export interface Discovery {
  readonly root: string;
  readonly sessions: DiscoveredSession[];
  /** Things that hid part of the source tree other than a failed read, such as a child transcript that names no session. */
  readonly warnings: string[];
  /** Every folder and file discovery could not read; a source file discovered but unreadable is found by its collection (SourceOutcome.unreadable). */
  readonly unreadable: UnreadableSource[];
}

/** How the source root was chosen: by the option, the environment, the home folder, or the sample corpus when none exists. */
export type SourceRootOrigin = 'option' | 'CLAUDE_CONFIG_DIR' | 'XDG_CONFIG_HOME' | 'home' | 'sample';

export interface SourceRoot {
  readonly root: string;
  readonly origin: SourceRootOrigin;
}

/** A source root that was named and does not exist. */
export class SourceRootError extends Error {}

/** Which sessions a command takes: project folder patterns to include and to leave out. */
export interface SessionFilter {
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}

export type SessionMatcher = (session: Pick<DiscoveredSession, 'id' | 'folders' | 'primary'>) => boolean;

export interface GlossaryEntry {
  /** The runtime's name, or '' when it has none. */
  readonly native: string;
  /** Where the runtime records it, or why it does not. */
  readonly where: string;
}

export interface Glossary {
  /** Names the runtime's vocabulary and its version, as `glossary --json` prints it. */
  readonly dialect: string;
  readonly entries: Readonly<Record<string, GlossaryEntry>>;
  /** How a model name reads in the chosen terms. */
  termFor(name: string, terms: 'unified' | 'native' | 'both'): string;
}

export interface RestoredRecord {
  /** The landed payload: one source record. */
  readonly payload: Buffer;
}

/** The target transcript exists already: restore never overwrites one. */
export class TranscriptExists extends Error {}

export interface Adapter {
  /** Adapter name and version, written into every landed header: claude-code/0.1.0. */
  readonly name: string;
  /** Where a worker thread loads this adapter from: a module URL and the name it is exported as. */
  readonly location: { readonly module: string; readonly export: string };
  readonly converter: Converter;
  /** The record id of one source record, used as the cursor's diagnostic anchor. */
  recordId(line: Buffer): string;
  /** The source root: the option when given, else where the runtime keeps its sessions on this machine, else the sample corpus. */
  resolveSourceRoot(option: string | undefined, environment?: NodeJS.ProcessEnv): SourceRoot;
  /** One line saying which source root is read and why. */
  describeSourceRoot(source: SourceRoot): string;
  discover(root: string): Discovery;
  sessionMatcher(filter: SessionFilter): SessionMatcher;
  readonly glossary: Glossary;
  /** A tool use of this runtime, by its tool's name and input, in the model's words (model/tools.ts). */
  describeTool(name: string, input: unknown): ToolDescription;
  /**
   * A title the runtime recorded or a prompt typed into it, without the
   * runtime's own markup: a slash command as the person typed it, text the
   * runtime added taken out. Undefined when nothing is left that could title
   * a conversation.
   */
  titleText(text: string): string | undefined;
  /** The slash command, with its arguments as the person typed them (`/review-pr 123`), that a command record's text holds; undefined for any other text. */
  slashCommand(text: string): string | undefined;
  /** Writes records as a transcript the runtime can resume, under `out`; returns its path. Throws TranscriptExists rather than overwrite. */
  writeRestoredTranscript(out: string, project: string, session: string, records: readonly RestoredRecord[]): string;
}
