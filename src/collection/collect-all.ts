// One collection pass over everything an adapter discovered.
//
// Sessions are independent units of work: each is locked, landed and
// released on its own, so a problem in one (a conflict, a held lock) never
// stops the others, and the pass reports every problem rather than the first.

import fs from 'node:fs';
import { sessionStatePath } from '../landing/layout.ts';
import { collectSession, collectVanishedSession, type SessionOutcome } from './collector.ts';
import type { Adapter, DiscoveredSession, Discovery } from './source.ts';

export interface CollectAllOptions {
  readonly data: string;
  readonly adapter: Adapter;
  readonly discovery: Discovery;
  /** Which sessions to collect; a session left out is not touched at all. */
  readonly selected: (session: Pick<DiscoveredSession, 'id' | 'folders' | 'primary'>) => boolean;
  readonly onSession?: (outcome: SessionOutcome, done: number, total: number) => void;
  /** See CollectOptions.deriveSessionData. */
  readonly deriveSessionData?: boolean;
}

export interface CollectAllReport {
  readonly sessions: SessionOutcome[];
  readonly skipped: number;
}

export function collectAll(options: CollectAllOptions): CollectAllReport {
  const chosen = options.discovery.sessions.filter(options.selected);
  const discovered = new Set(options.discovery.sessions.map((session) => session.id));
  // A session whose every source was pruned is no longer discovered, but its
  // landed data is still here and its cursors should say the sources are gone.
  const vanished = storedSessions(options.data).filter((id) => !discovered.has(id) && options.selected({ id, folders: [] }));
  const total = chosen.length + vanished.length;
  const outcomes: SessionOutcome[] = [];
  const common = { data: options.data, adapter: options.adapter, sourceRoot: options.discovery.root, deriveSessionData: options.deriveSessionData };
  for (const session of chosen) {
    const outcome = collectSession(session, common);
    outcomes.push(outcome);
    options.onSession?.(outcome, outcomes.length, total);
  }
  for (const id of vanished) {
    const outcome = collectVanishedSession(id, common);
    outcomes.push(outcome);
    options.onSession?.(outcome, outcomes.length, total);
  }
  return { sessions: outcomes, skipped: options.discovery.sessions.length - chosen.length };
}

/** Sessions that have been collected into this storage zone before. */
export function storedSessions(data: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(data);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => !name.startsWith('_') && !name.startsWith('.') && fs.existsSync(sessionStatePath(data, name))).sort();
}

export function landedTotals(report: CollectAllReport): { files: number; records: number; bytes: number } {
  let files = 0;
  let records = 0;
  let bytes = 0;
  for (const session of report.sessions) {
    for (const source of session.sources) {
      for (const landed of source.landed) {
        files++;
        records += landed.records;
        bytes += landed.sourceBytes;
      }
    }
  }
  return { files, records, bytes };
}
