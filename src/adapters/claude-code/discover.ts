// Finds Claude Code sessions and every file that belongs to each.
//
// Discovery is session-first. Every project folder is scanned for entries
// named by a session id, files and folders alike, and they are grouped by
// session id ACROSS project folders. A session's files scatter: Claude Code
// files a workflow script, and sometimes a child stream, under whatever working
// directory the agent had at the time, so a walk of one project folder misses
// part of some sessions, one of them spread across six folders.
//
// The files of one session (seed design-notes/01 §1.1 and §2.8):
//
//   <project>/<session>.jsonl                                      main transcript   append
//   <project>/<session>/subagents/agent-<agent>.jsonl              child transcript  append
//   <project>/<session>/subagents/agent-<agent>.meta.json          child sidecar     snapshot
//   <project>/<session>/subagents/workflows/<run>/agent-<agent>.*  workflow children
//   <project>/<session>/subagents/workflows/<run>/journal.jsonl    run journal       append
//   <project>/<session>/workflows/wf_<run>.json                    run manifest      snapshot (rewritten)
//   <project>/<session>/workflows/scripts/<label>-wf_<run>.js      run script        snapshot (rewritten)
//   <project>/agent-<agent>.jsonl                                  older versions: a child at project level,
//                                                                  its session named only inside its records
//
// A session whose main transcript was pruned while its children survive is
// normal, and so is a non-session folder beside the sessions: `memory/` is
// not a session.
//
// A folder or file that cannot be read hides sources, so each is named in
// `unreadable` with what the system said, never skipped in silence; one that
// vanished during the scan is normal, since the tree is live.
//
// A symbolic link is taken for what it points to: people link a project
// folder or a transcript into the projects root from elsewhere, and such a
// root once exported no conversation and said nothing. A link to nothing is
// named in the warnings.

import fs from 'node:fs';
import path from 'node:path';
import type { CollectableSource, DiscoveredSession, Discovery, UnreadableSource } from '../adapter.ts';
import { systemErrorText } from '../../files/folders.ts';
import { MAIN_STREAM, type Place } from '../../landing/layout.ts';
import { readLines, withOpenFile } from '../../files/line-reader.ts';
import { agentFileName, isRunId, isSessionId, scriptName } from './identifiers.ts';

/** An entry of a folder, a symbolic link taken for what it points to. */
interface Entry {
  readonly name: string;
  isFile(): boolean;
  isDirectory(): boolean;
}

interface SessionBuilder {
  readonly id: string;
  readonly folders: Set<string>;
  primary?: string;
  readonly sources: CollectableSource[];
}

export function discoverSessions(root: string): Discovery {
  const warnings: string[] = [];
  const unreadable: UnreadableSource[] = [];
  const sessions = new Map<string, SessionBuilder>();
  const sessionOf = (id: string): SessionBuilder => {
    let session = sessions.get(id);
    if (!session) {
      session = { id, folders: new Set(), sources: [] };
      sessions.set(id, session);
    }
    return session;
  };
  /** The folder's entries, links taken for what they point to; none when it is not there, and undefined, with the folder named as unreadable, when it cannot be read. */
  const list = (folder: string): Entry[] | undefined => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      unreadable.push({ path: folder, error: systemErrorText(error) });
      return undefined;
    }
    const resolved: Entry[] = [];
    for (const entry of entries) {
      if (!entry.isSymbolicLink()) {
        resolved.push(entry);
        continue;
      }
      const link = path.join(folder, entry.name);
      try {
        const target = fs.statSync(link);
        resolved.push({ name: entry.name, isFile: () => target.isFile(), isDirectory: () => target.isDirectory() });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') warnings.push(`${path.relative(root, link)}: a symbolic link to nothing; it was not collected`);
        else unreadable.push({ path: link, error: systemErrorText(error) });
      }
    }
    return resolved;
  };
  const add = (session: SessionBuilder, project: string, source: CollectableSource): void => {
    session.folders.add(project);
    session.sources.push(source);
  };

  for (const project of list(root) ?? []) {
    if (!project.isDirectory()) continue;
    const projectPath = path.join(root, project.name);
    for (const entry of list(projectPath) ?? []) {
      const name = entry.name;
      if (entry.isFile() && name.endsWith('.jsonl') && isSessionId(name.slice(0, -'.jsonl'.length))) {
        const id = name.slice(0, -'.jsonl'.length);
        const session = sessionOf(id);
        session.primary ??= project.name;
        add(session, project.name, transcript(root, [project.name, name], id, MAIN_STREAM));
      } else if (entry.isDirectory() && isSessionId(name)) {
        const session = sessionOf(name);
        for (const source of sessionFolderSources(root, project.name, name, list)) add(session, project.name, source);
      } else if (entry.isFile()) {
        const agent = agentFileName(name);
        if (agent === undefined && name.endsWith('.jsonl')) {
          // Claude Code names a session's transcript by its id; a file renamed or copied in by hand is not guessed at.
          warnings.push(`${project.name}/${name}: a transcript whose name is not a session id (as <session-id>.jsonl); it was not collected`);
          continue;
        }
        if (agent?.type !== 'transcript') continue;
        const relative = `${project.name}/${name}`;
        const id = sessionNamedInside(path.join(projectPath, name));
        if (typeof id === 'object') {
          unreadable.push({ path: path.join(projectPath, name), error: id.error });
          continue;
        }
        if (id === undefined) {
          warnings.push(`${relative}: a project-level child transcript whose records name no session; it was not collected`);
          continue;
        }
        add(sessionOf(id), project.name, transcript(root, [project.name, name], id, agent.agent));
      }
    }
  }

  const discovered: DiscoveredSession[] = [...sessions.values()]
    .filter((session) => session.sources.length > 0)
    .map((session) => ({
      id: session.id,
      folders: [...session.folders].sort(),
      primary: session.primary,
      sources: session.sources.sort((a, b) => compareText(a.relative, b.relative)),
    }))
    .sort((a, b) => compareText(a.id, b.id));
  return { root, sessions: discovered, warnings, unreadable: unreadable.sort((a, b) => compareText(a.path, b.path)) };
}

function sessionFolderSources(root: string, project: string, session: string, listOrUnreadable: (folder: string) => Entry[] | undefined): CollectableSource[] {
  const sources: CollectableSource[] = [];
  const base = [project, session];
  // The session folder first: when it cannot be read, it is named once, rather than each folder under it.
  const top = listOrUnreadable(path.join(root, ...base));
  if (top === undefined) return sources;
  const held = new Set(top.map((entry) => entry.name));
  const list = (folder: string): Entry[] => listOrUnreadable(folder) ?? [];
  const children = (parts: string[]): void => {
    for (const entry of list(path.join(root, ...parts))) {
      if (!entry.isFile()) continue;
      const agent = agentFileName(entry.name);
      if (!agent) continue;
      sources.push(
        agent.type === 'transcript'
          ? transcript(root, [...parts, entry.name], session, agent.agent)
          : source(root, [...parts, entry.name], session, { type: 'stream', stream: agent.agent }, 'meta', 'meta', 'agent_meta', 'snapshot'),
      );
    }
  };

  if (held.has('subagents')) children([...base, 'subagents']);
  for (const run of held.has('subagents') ? list(path.join(root, ...base, 'subagents', 'workflows')) : []) {
    if (!run.isDirectory() || !isRunId(run.name)) continue;
    const parts = [...base, 'subagents', 'workflows', run.name];
    children(parts);
    if (fs.existsSync(path.join(root, ...parts, 'journal.jsonl'))) {
      sources.push(source(root, [...parts, 'journal.jsonl'], session, { type: 'run', run: run.name }, 'journal', 'journal', 'journal', 'append'));
    }
  }
  for (const entry of held.has('workflows') ? list(path.join(root, ...base, 'workflows')) : []) {
    const name = entry.name;
    if (entry.isFile() && name.endsWith('.json') && isRunId(name.slice(0, -'.json'.length))) {
      const run = name.slice(0, -'.json'.length);
      sources.push(source(root, [...base, 'workflows', name], session, { type: 'run', run }, 'manifest', 'manifest', 'workflow_manifest', 'snapshot'));
    }
  }
  for (const entry of held.has('workflows') ? list(path.join(root, ...base, 'workflows', 'scripts')) : []) {
    const script = entry.isFile() ? scriptName(entry.name) : undefined;
    if (!script) continue;
    // One run can have more than one script, so each has its own cursor,
    // named after its label.
    const cursorKey = `script.${script.label.replace(/[^A-Za-z0-9_-]/g, '_') || 'unnamed'}`;
    sources.push(source(root, [...base, 'workflows', 'scripts', entry.name], session, { type: 'run', run: script.run }, 'script', cursorKey, 'workflow_script', 'snapshot'));
  }
  return sources;
}

function transcript(root: string, parts: string[], session: string, stream: string): CollectableSource {
  return source(root, parts, session, { type: 'stream', stream }, 'transcript', 'transcript', 'transcript', 'append');
}

function source(
  root: string,
  parts: string[],
  session: string,
  place: Place,
  prefix: string,
  cursorKey: string,
  kind: CollectableSource['kind'],
  nature: CollectableSource['nature'],
): CollectableSource {
  return { path: path.join(root, ...parts), relative: parts.join('/'), session, place, prefix, cursorKey, kind, nature };
}

// Older Claude Code versions wrote child transcripts beside the sessions, as
// <project>/agent-<id>.jsonl. The file name does not say which session the
// child belongs to; its records do, in `sessionId`. Only the first few lines
// are read: that is enough, and the file may be large. A file that cannot be
// read gives what the system said.
function sessionNamedInside(file: string): string | undefined | { readonly error: string } {
  try {
    return withOpenFile(file, (descriptor) => {
      const size = fs.fstatSync(descriptor).size;
      let looked = 0;
      for (const line of readLines(descriptor, 0, Math.min(size, 8 << 20))) {
        if (++looked > 16) break;
        try {
          const id = (JSON.parse(line.bytes.toString('utf8')) as { sessionId?: unknown }).sessionId;
          if (typeof id === 'string' && isSessionId(id)) return id;
        } catch {
          // A line that is not JSON says nothing about the session; try the next.
        }
      }
      return undefined;
    });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : { error: systemErrorText(error) };
  }
}

// Byte order, not locale order: ids are compared exactly everywhere else too.
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
