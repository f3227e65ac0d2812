// Shared by the command's tests: the command as a person runs it, through the
// real launcher in a process of its own, with its real exit code.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const LAUNCHER = fileURLToPath(new URL('../../src/cli/sessionizer.mjs', import.meta.url));

/** Runs the command to its end, in `cwd` when given, with `environment` added to this process's. */
export function sessionizer(args: string[], options: { cwd?: string; environment?: NodeJS.ProcessEnv } = {}): { code: number | null; out: string; error: string } {
  const result = spawnSync(process.execPath, [LAUNCHER, ...args], { cwd: options.cwd, encoding: 'utf8', env: { ...process.env, ...options.environment } });
  return { code: result.status, out: result.stdout, error: result.stderr };
}
