// A parse worker for parallel.test.ts that stops as a worker out of its
// memory does: it takes a session and ends before it reports it.
import { parentPort, threadId } from 'node:worker_threads';

parentPort.on('message', ({ items, shares }) => {
  const index = Atomics.add(shares.next, 0, 1);
  if (index < items.length) Atomics.store(shares.takenBy, index, threadId + 1);
  process.exit(1);
});
