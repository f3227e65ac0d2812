// The work a parse worker thread does: take sessions from the shared counter
// and parse each, until none is left.

import { parentPort } from 'node:worker_threads';
import { serveWork } from '../cores/work-on-cores.ts';
import { parseOne, type SessionParse } from './parallel.ts';

serveWork<string, { data: string }, SessionParse>('the parse worker', parentPort!, (taken, task, report) => {
  for (const session of taken) report(parseOne(task.data, session));
});
