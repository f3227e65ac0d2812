// Where Claude Code keeps its transcripts on this machine.
//
// The order is DESIGN.md's: an explicit --source, then $CLAUDE_CONFIG_DIR/projects,
// then $XDG_CONFIG_HOME/claude/projects, then ~/.claude/projects. The first
// that exists is used. When none does, the sample corpus in fixtures/ is used
// and the caller says so, so a fresh machine with no Claude Code still has
// something to collect and export.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SourceRootError, type SourceRoot, type SourceRootOrigin } from '../adapter.ts';

/** The bundled sample corpus: synthetic Claude Code sessions, one per hazard. */
export const SAMPLE_ROOT = fileURLToPath(new URL('../../../fixtures/claude-code/projects', import.meta.url));

export function resolveSourceRoot(option: string | undefined, environment: NodeJS.ProcessEnv = process.env): SourceRoot {
  if (option !== undefined) {
    const root = path.resolve(option);
    if (!isFolder(root)) throw new SourceRootError(`--source ${option}: no such folder`);
    return { root, origin: 'option' };
  }
  const candidates: [string | undefined, SourceRootOrigin][] = [
    [environment.CLAUDE_CONFIG_DIR && path.join(environment.CLAUDE_CONFIG_DIR, 'projects'), 'CLAUDE_CONFIG_DIR'],
    [environment.XDG_CONFIG_HOME && path.join(environment.XDG_CONFIG_HOME, 'claude', 'projects'), 'XDG_CONFIG_HOME'],
    [path.join(environment.HOME || os.homedir(), '.claude', 'projects'), 'home'],
  ];
  // A folder with no file in it is no history: Claude Code makes it before
  // any session is saved, and a fresh machine has nothing else to show.
  for (const [root, origin] of candidates) {
    if (root && isFolder(root) && holdsAFile(root)) return { root: path.resolve(root), origin };
  }
  return { root: SAMPLE_ROOT, origin: 'sample' };
}

export function describeSourceRoot(source: SourceRoot): string {
  switch (source.origin) {
    case 'option':
      return `source ${source.root}`;
    case 'sample':
      return `no Claude Code history found ($CLAUDE_CONFIG_DIR, $XDG_CONFIG_HOME/claude, ~/.claude: missing or empty); using the sample corpus in ${source.root}`;
    default:
      return `source ${source.root} (from ${source.origin === 'home' ? '~/.claude' : `$${source.origin}`})`;
  }
}

/** Whether a regular file is anywhere under `folder`; stops at the first one found. */
function holdsAFile(folder: string): boolean {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return false;
  }
  return entries.some((entry) => entry.isFile()) || entries.some((entry) => entry.isDirectory() && holdsAFile(path.join(folder, entry.name)));
}

function isFolder(candidate: string): boolean {
  try {
    return fs.statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}
