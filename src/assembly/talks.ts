// Stage 7: build Talks and Runs.
//
// A Talk is one interaction that began outside the agent; a Run is one agent
// loop inside it. Neither is a runtime concept, so the boundary rule is
// exact (seed design-notes/02 §1.7):
//
//   A Talk starts on external input, OR on an agent loop where no record
//   states a trigger at all. Everything else continues the Talk in progress.
//
// A loop started by a completion notice is the same interaction going on. A
// loop with no stated trigger is a person acting without the runtime saying so
// (a local command), so it starts a Talk. A prompt typed while the agent was
// busy is steering inside the running Talk, never a start.
//
// Membership is found by walking BACK through each record's parents to the
// nearest record that belongs somewhere, never by line proximity, which
// agrees in the simple case and is wrong exactly at forks, re-written blocks
// and interrupts. Loops are keyed by (stream, loop id): a loop id recurs
// across streams. A child stream is exactly one Talk.
//
// Older runtimes record no loop ids and no triggers. There a Talk starts at
// each record shaped like typed input, and that it is apparent, not stated,
// stays visible on the record.
//
// Evidence can begin in the middle of an interaction: a file that continues
// another (its first record's parent is not in it), or a summary that
// replaced the context in place. A record of the agent or of a tool that
// descends from no record in a Talk starts a Talk whose real start is not in
// the evidence, and says so, so that what is there is read rather than left
// outside every Talk.

import type { IndexEntry } from '../index/session-index.ts';
import type { Trigger } from '../model/vocabulary.ts';
import type { Epoch, EpochCut } from './epochs.ts';
import { recordKey } from './record-keys.ts';

export interface Talk {
  readonly id: string;
  readonly stream: string;
  readonly epoch: Epoch;
  /** The record that began it; undefined for a child stream's single Talk with no records. */
  readonly start: IndexEntry | undefined;
  /**
   * How the start is known: stated by the record, apparent from its shape,
   * the child stream itself, or not at all: the Talk began before the
   * evidence does, and `start` is the first record of it there is.
   */
  readonly startedBy: 'stated_trigger' | 'no_stated_trigger' | 'apparent_input' | 'child_stream' | 'start_not_in_evidence';
}

export interface Run {
  readonly id: string;
  readonly talk: Talk;
  /** The agent loop id, when the runtime records one. */
  readonly loop?: string;
}

export interface TalkBuild {
  readonly talks: Talk[];
  readonly runs: Run[];
  /** Where each record belongs, by record key. A record in no Talk sits directly in its epoch. */
  readonly placement: Map<string, { readonly talk: Talk; readonly run: Run }>;
}

export function buildTalks(stream: string, records: readonly IndexEntry[], epochs: EpochCut, child: boolean): TalkBuild {
  const byId = new Map<string, IndexEntry>();
  for (const record of records) if (record.id !== undefined && !byId.has(record.id)) byId.set(record.id, record);

  // The loop a record belongs to: its own, or the nearest ancestor's. An
  // assistant record carries none and reaches one through its parents; the
  // walk is not capped, as some records are many hops from the nearest loop.
  const loopMemo = new Map<string, string | undefined>();
  const loopOf = (record: IndexEntry): string | undefined => {
    const path: string[] = [];
    let found: string | undefined;
    for (let at: IndexEntry | undefined = record; at !== undefined; at = at.parent !== undefined ? byId.get(at.parent) : undefined) {
      const key = recordKey(at);
      if (loopMemo.has(key)) {
        found = loopMemo.get(key);
        break;
      }
      path.push(key);
      if (at.cycle !== undefined) {
        found = at.cycle;
        break;
      }
      if (path.length > records.length) break; // a cycle in the parents: stop, found nothing
    }
    for (const key of path) loopMemo.set(key, found);
    return found;
  };

  // What started each loop: the first trigger any of its records states.
  const loopTrigger = new Map<string, Trigger>();
  for (const record of records) {
    if (record.cycle !== undefined && record.trigger !== undefined && !loopTrigger.has(record.cycle)) loopTrigger.set(record.cycle, record.trigger);
  }

  const talks: Talk[] = [];
  const runs: Run[] = [];
  const runById = new Map<string, Run>();
  const placement = new Map<string, { talk: Talk; run: Run }>();
  const talkOfLoop = new Map<string, Talk>();
  const runFor = (talk: Talk, loop: string | undefined): Run => {
    const id = loop !== undefined ? `${stream}/run/${loop}` : `${talk.id}/run`;
    let run = runById.get(id);
    if (!run) {
      run = { id, talk, loop };
      runById.set(id, run);
      runs.push(run);
    }
    return run;
  };
  const open = (start: IndexEntry | undefined, startedBy: Talk['startedBy'], epoch: Epoch): Talk => {
    const talk: Talk = { id: start === undefined || child ? `${stream}/talk` : `${stream}/talk/${recordKey(start)}`, stream, epoch, start, startedBy };
    talks.push(talk);
    return talk;
  };
  const placedAncestor = (record: IndexEntry): Talk | undefined => {
    let hops = 0;
    for (let at = record.parent !== undefined ? byId.get(record.parent) : undefined; at !== undefined && hops <= records.length; at = at.parent !== undefined ? byId.get(at.parent) : undefined, hops++) {
      const placed = placement.get(recordKey(at));
      if (placed) return placed.talk;
    }
    return undefined;
  };

  let childTalk: Talk | undefined;
  for (const record of records) {
    if (record.flags.includes('structural')) continue;
    const epoch = epochs.epochOf.get(recordKey(record))!;
    const loop = loopOf(record);
    let talk: Talk | undefined;
    if (child) {
      talk = childTalk ??= open(record, 'child_stream', epoch);
    } else if (loop !== undefined) {
      talk = talkOfLoop.get(loop);
      if (!talk) {
        const trigger = loopTrigger.get(loop);
        // A loop started by a notice, or by a cause the adapter does not
        // recognise, continues the interaction its records descend from.
        if (trigger === 'notification' || trigger === 'unknown') talk = placedAncestor(record);
        talk ??= open(record, trigger === 'external' ? 'stated_trigger' : 'no_stated_trigger', epoch);
        talkOfLoop.set(loop, talk);
      }
    } else if ((record.flags.includes('external_input') || record.flags.includes('apparent_input')) && !record.flags.includes('queued')) {
      talk = open(record, record.flags.includes('external_input') ? 'stated_trigger' : 'apparent_input', epoch);
    } else {
      talk = placedAncestor(record);
      if (!talk && (record.from === 'agent' || record.from === 'tool')) talk = open(record, 'start_not_in_evidence', epoch);
    }
    if (talk) placement.set(recordKey(record), { talk, run: runFor(talk, loop) });
  }
  return { talks, runs, placement };
}
