// Stage 3: group provider calls by call id, in line order.
//
// An agent record without a call id is a call of its own (callKey), and says
// so: the denominators count the calls that had no provider id.
//
// Never by walking parents forward: a call's fragments are interleaved with
// their own tool results (24.0% of multi-fragment calls have foreign records
// inside their span), so only a full scan keyed by call id finds them all
// (seed design-notes/02 §1.3). Never by request id: a client-made record can
// reuse a real call's request id. Client-made (synthetic) records are kept
// apart, so they are never counted as agent output.
//
// Usage is the LAST fragment's in line order, never a sum: a main transcript
// repeats the final usage on every fragment (summing multiplies it by the
// fragment count, 2.18x pooled) and a child stream writes climbing partials.
// It is available only when the call reported a stop reason: about 10% of
// calls never do, and their usage block is present but a streaming stub.

import type { IndexEntry } from '../index/session-index.ts';
import type { Usage } from '../session-data/format.ts';
import { callKey } from './record-keys.ts';

export interface ProviderCall {
  readonly id: string;
  readonly stream: string;
  /** In line order. */
  readonly fragments: IndexEntry[];
  readonly synthetic: boolean;
  /** Whether the provider's own id named the call, rather than its one record. */
  readonly identified: boolean;
  /** Whether any fragment says why the provider stopped. */
  readonly finished: boolean;
  readonly usage: Usage | 'unavailable';
}

export function groupProviderCalls(stream: string, records: readonly IndexEntry[]): ProviderCall[] {
  const byId = new Map<string, IndexEntry[]>();
  const order: string[] = [];
  for (const record of records) {
    const key = callKey(record);
    if (key === undefined) continue;
    let fragments = byId.get(key);
    if (!fragments) {
      byId.set(key, (fragments = []));
      order.push(key);
    }
    fragments.push(record);
  }
  return order.map((id) => {
    const fragments = byId.get(id)!;
    const finished = fragments.some((fragment) => fragment.flags.includes('finished'));
    const last = fragments[fragments.length - 1]!;
    return {
      id,
      stream,
      fragments,
      synthetic: fragments.some((fragment) => fragment.flags.includes('synthetic')),
      identified: last.call !== undefined,
      finished,
      usage: finished && last.usage !== undefined ? last.usage : 'unavailable',
    };
  });
}
