// A worker thread's first module. Workers do not inherit the TypeScript
// loader of the thread that starts them, so it is registered here first.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
