// A worker thread's first module when the command runs through tsx: workers
// do not inherit the TypeScript loader of the thread that starts them, so it
// is registered here before the worker's own module (workerData.module) is
// imported. A worker of the kept command's bundle needs none of this
// (work-on-cores.ts).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);
