// The helper thread behind flush.ts: it runs the fsyncs of one request all at
// once on libuv's thread pool, then wakes the waiting thread. Plain
// JavaScript, so that starting it needs no TypeScript loader.
import fs from 'node:fs';
import { workerData } from 'node:worker_threads';

const { port, signal } = workerData;

function fsync(descriptor) {
  return new Promise((resolve, reject) => fs.fsync(descriptor, (error) => (error ? reject(error) : resolve())));
}

async function syncFolder(folder) {
  // A folder some filesystems refuse to open for this is not a failure: see atomic-file.ts.
  let handle;
  try {
    handle = await fs.promises.open(folder, 'r');
    await handle.sync();
  } catch {
    // The rename has happened either way.
  } finally {
    await handle?.close();
  }
}

port.on('message', async ({ descriptors, folders }) => {
  const failures = [];
  await Promise.all([
    ...descriptors.map((descriptor, index) => fsync(descriptor).catch((error) => failures.push({ index, message: error.message, code: error.code }))),
    ...folders.map(syncFolder),
  ]);
  port.postMessage({ failures });
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
