// The work a collection worker thread does on request: land one session, or
// derive the `.sd` of one landed file. Each answer goes back as one message.

import { parentPort } from 'node:worker_threads';
import { deriveSessionData } from '../session-data/derive.ts';
import { collectSession } from './collector.ts';
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
    if (task.type === 'land') {
      answer = { type: 'landed', id: task.id, outcome: collectSession(task.session, { data: task.data, sourceRoot: task.sourceRoot, adapter, deriveSessionData: false }) };
    } else {
      const report = deriveSessionData(task.file, adapter.converter, task.digest);
      answer = { type: 'derived', id: task.id, file: task.file, unknownShapes: report.unknownShapes };
    }
  } catch (error) {
    answer = { type: 'failed', id: task.id, message: (error as Error).message };
  }
  parentPort!.postMessage(answer);
});
