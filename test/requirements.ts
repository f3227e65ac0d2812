// What some suites need that a machine may lack: Debian's Chromium for the
// browser tests, `../shared/corpus` beside the checkout for the conformance
// tests. Such a suite is declared with describeWhere, which states once why it
// cannot run here; it is then skipped, and the test summary
// (summary-reporter.ts) prints the reason with its file.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** Why the suite is skipped on this machine: what it needs and cannot find. */
    missing?: string;
  }
}

const REPOSITORY = fileURLToPath(new URL('..', import.meta.url));

/** Why a test that runs `program` cannot run here, or undefined when it can. */
export function programMissing(program: string): string | undefined {
  return fs.existsSync(program) ? undefined : `${program} is not installed`;
}

/** Why a test of files outside the repository cannot run here (the first of `files` not there), or undefined when it can. */
export function filesMissing(...files: string[]): string | undefined {
  const absent = files.find((file) => !fs.existsSync(file));
  return absent === undefined ? undefined : `${path.relative(REPOSITORY, absent)} is not there`;
}

/** The user a test runs the command as, to make a folder unreadable to it: root reads everything. */
export const ANOTHER_USER = 65534;

/**
 * Why a test cannot run the command as ANOTHER_USER here, or undefined when
 * it can: that takes root, setpriv, and a checkout every user may reach.
 */
export function anotherUserMissing(): string | undefined {
  if (process.getuid?.() !== 0) return 'running the command as another user takes root';
  const missing = programMissing('/usr/bin/setpriv');
  if (missing !== undefined) return missing;
  for (let folder = REPOSITORY; ; folder = path.dirname(folder)) {
    if ((fs.statSync(folder).mode & 0o005) !== 0o005) return `${folder} cannot be read by another user`;
    if (folder === path.dirname(folder)) return undefined;
  }
}

/**
 * Why a test cannot mount a small tmpfs here (it needs root, or a user
 * namespace, and a kernel that allows it), or undefined when it can: a
 * full-disk test fills one. Tried once, on a folder of its own.
 */
export function tmpfsMissing(): string | undefined {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sessionizer-mount-'));
  try {
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', folder], { encoding: 'utf8' });
    if (mounted.status !== 0) return `a tmpfs cannot be mounted here (mount says: ${(mounted.stderr || mounted.error?.message || `exit ${mounted.status}`).trim()})`;
    spawnSync('umount', [folder]);
    return undefined;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** The first reason of several, or undefined when there is none. */
export function firstMissing(...reasons: (string | undefined)[]): string | undefined {
  return reasons.find((reason) => reason !== undefined);
}

/** A suite that runs where nothing it needs is `missing`, and is skipped with that reason elsewhere. */
export function describeWhere(missing: string | undefined, name: string, body: () => void): void {
  describe.skipIf(missing !== undefined)(name, { meta: { missing } }, body);
}
