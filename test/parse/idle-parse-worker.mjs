// A parse worker for parallel.test.ts that parses nothing: it takes every
// session it can and reports each as having nothing new.
import { parentPort, threadId } from 'node:worker_threads';

parentPort.on('message', ({ items, shares }) => {
  for (;;) {
    const index = Atomics.add(shares.next, 0, 1);
    if (index >= items.length) break;
    Atomics.store(shares.takenBy, index, threadId + 1);
    parentPort.postMessage({ type: 'outcome', outcome: { session: items[index], unchanged: true } });
  }
  parentPort.postMessage({ type: 'done' });
});
