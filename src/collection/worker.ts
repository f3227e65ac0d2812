// The work a collection worker thread does on request: land a group of
// sessions, each with its `.sd`. Each answer goes back as one message.

import { parentPort } from 'node:worker_threads';
import { collectSessions } from './collector.ts';
import type { Adapter } from './source.ts';
import type { TaskAnswer, Task } from './parallel.ts';

const adapters = new Map<string, Adapter>();

async function adapterAt(location: Adapter['location']): Promise<Adapter> {
  const key = `${location.module}#${location.export}`;
  let adapter = adapters.get(key);
  if (!adapter) {
    adapter = (await import(location.module))[location.export] as Adapter;
    adapters.set(key, adapter);
  }
  return adapter;
}

parentPort!.on('message', async (task: Task) => {
  let answer: TaskAnswer;
  try {
    const adapter = await adapterAt(task.adapter);
    answer = { type: 'landed', id: task.id, outcomes: collectSessions(task.sessions, { ...task.options, adapter }) };
  } catch (error) {
    answer = { type: 'failed', id: task.id, message: (error as Error).message };
  }
  parentPort!.postMessage(answer);
});
