// A worker for young-generation.test.ts: reports, for each item it takes,
// the limits its thread was started with.
import { parentPort, resourceLimits } from 'node:worker_threads';

parentPort.on('message', ({ items, shares }) => {
  for (;;) {
    const index = Atomics.add(shares.next, 0, 1);
    if (index >= items.length) break;
    parentPort.postMessage({ type: 'outcome', outcome: { item: items[index], youngGenerationMb: resourceLimits.maxYoungGenerationSizeMb, oldGenerationMb: resourceLimits.maxOldGenerationSizeMb } });
  }
  parentPort.postMessage({ type: 'done' });
});
