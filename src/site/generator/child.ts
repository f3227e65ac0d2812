// The processes of the site: the kept renderer's children (render.mjs) and
// the Astro build that makes the renderer (astro-build.mjs), each a plain
// `node` of its own.

import { spawn } from 'node:child_process';
import { refusedWriteCode } from '../../files/write-failure.ts';
import { LATE_OPTIMISATION } from '../../cores/optimisation.ts';

export interface Child {
  readonly pid: number;
  /** Resolves to the child's peak resident memory once it says its work is done, or it ends well. */
  readonly done: Promise<number>;
  /** Sends the child a message over its IPC channel. */
  send(message: unknown): void;
  /** Hears each message the child sends over its IPC channel. */
  onMessage(listener: (message: unknown) => void): void;
  stop(): void;
}

/**
 * The environment of every site child: the caller's, with Astro's telemetry
 * off (it would make a network request; a build makes none) and NODE_ENV
 * production, whatever the caller's (vitest sets test): the page code is
 * built for production, and Vite and Astro read NODE_ENV as they are
 * imported, so it is set when the child starts, not later. What the child
 * renders is no part of its environment: a renderer child is given its
 * SiteInput (generator/site-input.ts) in its first message
 * (renderer-child.ts), possibly long after it started.
 */
export function siteChildEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' };
}

/**
 * Starts a Node script; its output is kept for the error a failure
 * becomes, and its peak memory, which it sends when done, is what `done`
 * resolves to. SIGINT and SIGTERM sent to this process reach the child too,
 * and then end this process as they would have without the child.
 */
export function startChild(script: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, nodeFlags: readonly string[] = []): Child {
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, ...nodeFlags, script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let stopped = false;
  const done = new Promise<number>((resolve, reject) => {
    let output = '';
    let peak = 0;
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    // The child sends its peak memory once every page is written, as its
    // last word: that is when its work is done. Its exit comes some tens of
    // milliseconds later (its heap and threads torn down), which the export
    // need not wait for.
    child.on('message', (message: { peakResidentBytes?: number }) => {
      if (typeof message.peakResidentBytes !== 'number') return;
      peak = message.peakResidentBytes;
      resolve(peak);
    });
    const forward = (signal: NodeJS.Signals): void => {
      child.kill(signal);
      stopForwarding();
      process.kill(process.pid, signal);
    };
    const stopForwarding = (): void => {
      process.removeListener('SIGINT', forward);
      process.removeListener('SIGTERM', forward);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', (error) => {
      stopForwarding();
      reject(new Error(`the site build (${script}) could not start: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      stopForwarding();
      if (code === 0) resolve(peak);
      else if (stopped) reject(new Error(`the site build (${script}) was stopped: another build failed`));
      else reject(Object.assign(new Error(`the site build (${script}) failed with ${signal ? `signal ${signal}` : `exit code ${code}`}${output.trim() ? `:\n${output.trim()}` : ''}`), refusedWriteIn(output)));
    });
  });
  return {
    pid: child.pid ?? 0,
    done,
    send(message) {
      child.send(message as object);
    },
    onMessage(listener) {
      child.on('message', listener);
    },
    stop() {
      stopped = true;
      child.kill('SIGTERM');
    },
  };
}

/**
 * V8 lets the heap grow to several times what is alive before it collects,
 * and a child rendering pages makes a page's worth of garbage for each, so
 * a child rendering a very large conversation peaked at several times what
 * it held. Growing the heap by half at most keeps that peak well down for a
 * little more time in the site step; by a fifth it was lower still but
 * markedly slower (bench/results/measurements-behind-choices.md, where the figures are).
 *
 * The young generation is bounded at semi-spaces of 4 MB: a page's
 * garbage is mostly short-lived (rows parsed, strings joined), and with
 * semi-spaces of 16 MB the renderer child of the generated corpus's largest
 * conversation peaked at 211-213 MB against 183-191 MB, for the same
 * processor time in the site step (bench/results/measurements-behind-choices.md).
 *
 * Each child collects its garbage on its own thread (`--single-threaded-gc`)
 * rather than with helper threads of its own: the site step's children and
 * the evidence pages' thread keep both cores busy, so a child's helpers
 * only wait for a core and for each other. Whole first
 * exports took 5 % less time on the real corpus and 3 % less on a generated
 * one, in pairs (bench/results/peers-2026-12-06-stop-47.md).
 *
 * And a child optimises functions late, as the command does (cores/optimisation.ts).
 */
const CHILD_NODE_FLAGS: readonly string[] = ['--heap-growing-percent=50', '--max-semi-space-size=4', '--single-threaded-gc', ...LATE_OPTIMISATION];

/**
 * The code and file of the last system error a failed child printed
 * (`ENOSPC: no space left on device, open '/…'`), when it is a write the
 * file system refused: so that a full disk in a child is said as one in
 * this process would be (files/write-failure.ts), not as the child's output.
 */
function refusedWriteIn(output: string): { code?: string; path?: string } {
  let last: RegExpExecArray | undefined;
  for (const match of output.matchAll(SYSTEM_ERROR)) last = match;
  if (last === undefined || refusedWriteCode({ code: last[1] }) === undefined) return {};
  // A copy or a rename names its source, then its destination: the file written.
  const file = last[3] ?? last[2];
  return { code: last[1], ...(file !== undefined ? { path: file } : {}) };
}

/** Node's message of a failed system call: `CODE: description, call` and, when it names them, ` 'file'` or ` 'from' -> 'to'`. */
const SYSTEM_ERROR = /\b(E[A-Z0-9]+): [^,\n]+, [a-z]+(?: '([^'\n]+)'(?: -> '([^'\n]+)')?)?/g;

/** How much of a failed build's output its error keeps: the end, where the cause is. */
const OUTPUT_KEPT = 16 * 1024;
