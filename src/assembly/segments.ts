// Stage 8: propose segments on idle gaps, then gate them.
//
// A quiet period makes a close CANDIDATE, not a commit: a long gap often
// falls inside a Talk, at a gap of ten minutes as of twenty (seed
// design-notes/02 §1.8). The gap is a policy setting, recorded in every
// round's header. A candidate is gated:
//   no_crossing_open_operation  no tool use before the gap has its result after it
//   activity_boundary           the gap is real: measured on records in landed order,
//                               with a backwards time step clamped, never read as a gap
// The other two gates of the model cannot pass from local files alone: no
// lateness watermark exists (a session is never complete, only quiet), and
// conversation identity is the supplied default. So a segment is at most a
// candidate here, never committed, and the report says which gate holds it.

import type { IndexEntry } from '../index/session-index.ts';
import { recordKey } from './record-keys.ts';
import type { ToolStep } from './tools.ts';

export const DEFAULT_IDLE_GAP_MS = 10 * 60 * 1000;

export interface Segment {
  readonly id: string;
  readonly first: IndexEntry;
  readonly last: IndexEntry;
  /** candidate: an idle gap follows and the gates that can pass did; held: a gate failed; open: still the latest window. */
  readonly state: 'candidate' | 'held' | 'open';
  readonly gates: { readonly activity_boundary: boolean; readonly no_crossing_open_operation: boolean; readonly lateness_watermark: 'unavailable'; readonly conversation_identity: 'supplied_default' };
  /** Quiet time after the window, in milliseconds. */
  readonly gapAfter?: number;
}

export function proposeSegments(records: readonly IndexEntry[], steps: readonly ToolStep[], idleGap: number = DEFAULT_IDLE_GAP_MS): { segments: Segment[]; segmentOf: Map<string, Segment> } {
  const timed = records.filter((record) => record.ts !== undefined && !record.flags.includes('structural') && Number.isFinite(Date.parse(record.ts)));
  const position = new Map<IndexEntry, number>();
  records.forEach((record, index) => position.set(record, index));
  const segments: Segment[] = [];
  const segmentOf = new Map<string, Segment>();
  let first = 0;
  const close = (end: number, gapAfter: number | undefined): void => {
    const window = timed.slice(first, end + 1);
    if (window.length === 0) return;
    const last = window[window.length - 1]!;
    const next = timed[end + 1];
    // A tool asked for inside the window whose result lands after it would
    // freeze a request apart from its answer.
    const crossing = next !== undefined && steps.some((step) => step.result !== 'unavailable' && position.get(step.use)! <= position.get(last)! && position.get(step.result)! >= position.get(next)!);
    const segment: Segment = {
      id: `segment/${recordKey(window[0]!)}`,
      first: window[0]!,
      last,
      state: gapAfter === undefined ? 'open' : crossing ? 'held' : 'candidate',
      gates: { activity_boundary: gapAfter !== undefined, no_crossing_open_operation: !crossing, lateness_watermark: 'unavailable', conversation_identity: 'supplied_default' },
      gapAfter,
    };
    segments.push(segment);
    for (const record of window) segmentOf.set(recordKey(record), segment);
  };
  for (let index = 1; index < timed.length; index++) {
    const gap = Math.max(0, Date.parse(timed[index]!.ts!) - Date.parse(timed[index - 1]!.ts!));
    if (gap >= idleGap) {
      close(index - 1, gap);
      first = index;
    }
  }
  close(timed.length - 1, undefined);
  return { segments, segmentOf };
}
