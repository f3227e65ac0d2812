// The steps of a long command, timed: progress with rates on a terminal while
// each runs, and one line per finished step after it. With --json or in a
// pipe nothing is drawn, and the timings go into the command's JSON report.

import type { StepObserver } from '../bundle/steps.ts';
import { megabytes, progress, rate, type Progress } from './progress.ts';

export interface StepTiming {
  readonly step: string;
  readonly ms: number;
  readonly items: number;
  readonly bytes: number;
  /**
   * The peak resident memory when the step ended: of this process, or, when
   * it is more, the sum of the peaks of the children a step ran at once (the
   * site's renderer children).
   */
  readonly peak_rss_bytes: number;
}

const NOUNS: Record<string, string> = { collect: 'sessions', parse: 'conversations', bundle: 'files', site: 'pages', manifest: 'files', replace: 'files', archive: 'files' };

export class StepClock implements StepObserver {
  readonly timings: StepTiming[] = [];
  private readonly bar: Progress;
  private current: { step: string; started: number; items: number; bytes: number } | undefined;
  private childPeak = 0;

  constructor(
    drawn: boolean,
    /** Where a line per finished step goes, or nowhere. */
    private readonly summary: ((text: string) => void) | undefined,
  ) {
    this.bar = progress(drawn);
  }

  step(name: string): void {
    this.end();
    this.current = { step: name, started: performance.now(), items: 0, bytes: 0 };
    this.bar.update(`${name}…`);
  }

  advance(items: number, bytes: number): void {
    const current = this.current;
    if (!current) return;
    current.items += items;
    current.bytes += bytes;
    this.bar.update(this.describe(current, performance.now() - current.started));
  }

  childMemory(bytes: number): void {
    this.childPeak = Math.max(this.childPeak, bytes);
  }

  /** Ends the step in progress, if any, and returns its timing. */
  end(): StepTiming | undefined {
    const current = this.current;
    if (!current) return undefined;
    this.current = undefined;
    const ms = performance.now() - current.started;
    this.bar.done();
    const timing = { step: current.step, ms: Math.round(ms), items: current.items, bytes: current.bytes, peak_rss_bytes: Math.max(process.resourceUsage().maxRSS * 1024, this.childPeak) };
    this.timings.push(timing);
    this.summary?.(`${this.describe(current, ms)} in ${(ms / 1000).toFixed(2)} s\n`);
    return timing;
  }

  private describe(current: { step: string; items: number; bytes: number }, ms: number): string {
    const noun = NOUNS[current.step] ?? 'items';
    return current.bytes > 0 ? `${current.step}: ${current.items} ${noun}, ${megabytes(current.bytes)}, ${rate(current.bytes, ms)}` : `${current.step}: ${current.items} ${noun}`;
  }
}
