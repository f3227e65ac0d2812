// The work a collection worker thread does: take sessions from the shared
// counter and land them, each with its `.sd`, until none is left. Each
// session's outcome goes back once its batch is committed.

import { parentPort } from 'node:worker_threads';
import { adapterAt } from '../adapters/built-in.ts';
import { serveWork } from '../cores/work-on-cores.ts';
import { collectSessions } from './collector.ts';
import type { SessionOutcome } from './outcome.ts';
import type { CollectionTask } from './parallel.ts';
import type { DiscoveredSession } from '../adapters/adapter.ts';

serveWork<DiscoveredSession, CollectionTask, SessionOutcome>('the collection worker', parentPort!, async (taken, task, report) => {
  // Loaded before any session is taken: should it fail, the other threads land every session.
  const adapter = await adapterAt(task.adapter);
  collectSessions(taken, { ...task.options, adapter }, report);
});
