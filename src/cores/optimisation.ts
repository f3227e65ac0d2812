// When V8 optimises a function. By default it compiles a function with its
// optimising compiler once the function has run a little, on helper threads
// beside the one running it. A command's processes and threads live seconds,
// most of their functions run for a moment and never again, and the export
// keeps every core busy from its first step to its last: the helper threads
// of the command and of each renderer child spent a third to a half as much
// processor time as the JavaScript itself, compiling functions that were
// then called only a few more times. With a budget eight times V8's, only
// the functions a process keeps calling are optimised, for the same output
// and the same peaks of memory (bench/results/peers-2026-12-07-stop-49.md).

import v8 from 'node:v8';

/** The V8 flag that optimises a function only after eight times V8's default budget of running. */
export const LATE_OPTIMISATION = '--interrupt-budget=540000';

/**
 * Sets LATE_OPTIMISATION for this process: for the functions that run from
 * now on, and for every worker thread started after (V8's flags are the
 * process's). A child process is given it on its command line instead.
 */
export function optimiseLate(): void {
  v8.setFlagsFromString(LATE_OPTIMISATION);
}
