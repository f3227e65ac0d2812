// How the long steps of an export say how far they are, so the command can
// draw progress on a terminal and time every step for `--json` and the
// benchmark, without any step knowing about terminals.

export interface StepObserver {
  /** A step begins; the one before it ends. */
  step(name: string): void;
  /** Work done in the current step since the last call: files (or sessions, or pages) and bytes. */
  advance(items: number, bytes: number): void;
  /** A child process of the current step (the site's Astro build) ended having used at most this much resident memory. */
  childMemory?(bytes: number): void;
}

export const UNOBSERVED: StepObserver = { step() {}, advance() {} };
