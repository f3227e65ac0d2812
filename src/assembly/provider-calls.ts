// Stage 3: group provider calls by call id, in line order.
//
// An agent record without a call id is a call of its own (callKey), and says
// so: the denominators count the calls that had no provider id.
//
// Never by walking parents forward: a call's fragments are interleaved with
// their own tool results (other records often sit inside a call's span), so
// only a full scan keyed by call id finds them all
// (seed design-notes/02 §1.3). Never by request id: a client-made record can
// reuse a real call's request id. Client-made (synthetic) records are kept
// apart, so they are never counted as agent output.
//
// Usage is the LAST fragment's in line order that carries one, never a sum: a
// main transcript repeats the final usage on every fragment (summing
// multiplies it by the fragment count) and a child stream writes
// climbing partials. Field by field it means different things: input and
// cache tokens are known when the call starts, so every fragment carries their
// final value; output tokens are final only once the provider said why it
// stopped, and on a call that never did, the last value seen is a lower bound.

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
  /** The model the provider named, from the last fragment that names one. */
  readonly model?: string;
  /** `unavailable` only when no fragment carries usage at all. */
  readonly usage: CallUsage | 'unavailable';
}

export interface CallUsage extends Usage {
  /** Whether `output` is the call's final count; false makes it a lower bound. */
  readonly output_final: boolean;
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
    const last = fragments.findLast((fragment) => fragment.usage !== undefined)?.usage;
    const identified = fragments[fragments.length - 1]!.call !== undefined;
    return {
      id,
      stream,
      fragments,
      synthetic: fragments.some((fragment) => fragment.flags.includes('synthetic')),
      identified,
      finished,
      model: fragments.findLast((fragment) => fragment.model !== undefined)?.model,
      usage: last !== undefined ? { ...last, output_final: finished && last.output !== undefined } : 'unavailable',
    };
  });
}
