// The work a collection worker thread does on request: take sessions from
// the shared counter and land them, each with its `.sd`, until none is left.
// Each session's outcome goes back once its batch is committed.

import { parentPort } from 'node:worker_threads';
import { collectSessions } from './collector.ts';
import { adapterAt } from '../adapters/built-in.ts';
import type { Adapter } from './source.ts';
import { takeSessions, type Task, type WorkerMessage } from './parallel.ts';

const post = (message: WorkerMessage): void => parentPort!.postMessage(message);

parentPort!.on('message', async (task: Task) => {
  let adapter: Adapter;
  try {
    adapter = await adapterAt(task.adapter);
  } catch (error) {
    // Nothing taken yet: the other threads land every session.
    post({ type: 'failed', message: `the collection worker could not load its adapter: ${(error as Error).message}` });
    return;
  }
  try {
    collectSessions(takeSessions(task.sessions, task.shares), { ...task.options, adapter }, (outcome) => post({ type: 'session', outcome }));
    post({ type: 'done' });
  } catch (error) {
    post({ type: 'failed', message: `the collection worker failed: ${(error as Error).message}` });
  }
});
