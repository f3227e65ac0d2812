// When V8 optimises a function. By default it compiles a function with its
// optimising compiler once the function has run a little, on helper threads
// beside the one running it. A command's processes and threads live seconds,
// most of their functions run for a moment and never again, and the export
// keeps every core busy from its first step to its last: V8's helper threads
// spent a large part of the export's processor time compiling functions that
// were then called only a few more times. Asked to wait eight times as long,
// V8 optimises only the functions a process keeps calling, for the same
// output and the same peaks of memory (bench/results/peers-2026-12-07-stop-49.md).
//
// The flag that says so is V8's own and has changed: V8 11 (Node 20) counts
// a function's running against an interrupt budget, V8 12 and 13 (Node 22
// to 24) count its calls before TurboFan. A flag V8 does not know stops a
// child process that is given it, so a V8 not named here is left as it is.

import v8 from 'node:v8';

/** The V8 flags that optimise a function only after eight times V8's default running, for the V8 of major version `major`: none for one not known here. */
export function lateOptimisationFor(major: number): readonly string[] {
  if (major === 11) return ['--interrupt-budget=540000'];
  if (major === 12 || major === 13) return ['--invocation-count-for-turbofan=24000'];
  return [];
}

/** lateOptimisationFor the V8 this process runs on, which its child processes run on too (they are started with its `node`). */
export const LATE_OPTIMISATION: readonly string[] = lateOptimisationFor(Number(process.versions.v8.split('.')[0]));

/**
 * Sets LATE_OPTIMISATION for this process: for the functions that run from
 * now on, in every thread, those started later included (V8's flags are the
 * process's). A child process is given it on its command line instead.
 */
export function optimiseLate(): void {
  for (const flag of LATE_OPTIMISATION) v8.setFlagsFromString(flag);
}
