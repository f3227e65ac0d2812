// When V8 optimises a function. By default it compiles a function with its
// optimising compiler once the function has run a little, on helper threads
// beside the one running it. A command's processes and threads live seconds,
// and most of their functions run for a moment and never again: a profile of
// a first export found the helper threads of the command and of each renderer
// child spending about a third as much processor time as the JavaScript
// itself, compiling functions that were then called only a few more times,
// on a machine whose cores the export keeps busy. With a budget eight times
// V8's before a function is optimised, only the functions a process keeps
// calling are: the whole first export of the real corpus took about a sixth
// less time, the generated corpus's site step about a seventh less, for the
// same output and the same peaks of memory
// (bench/results/peers-2026-12-07-stop-49.md).

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
