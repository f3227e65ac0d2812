// The work an archive worker thread does: take frames from the shared
// counter and compress each, reading its files, until none is left.

import { parentPort } from 'node:worker_threads';
import { serveWork } from '../cores/work-on-cores.ts';
import { FrameCompressor, type FrameJob, type FrameOutcome } from './frame-compressor.ts';

serveWork<FrameJob, { folder: string }, FrameOutcome>(
  'the archive worker',
  parentPort!,
  (taken, task, report) => {
    const compressor = new FrameCompressor();
    for (const job of taken) compressor.compress(job, task.folder, report);
  },
  // A piece is a copy of its own (frame-compressor.ts), so it is handed over rather than copied again.
  (outcome) => (outcome.bytes ? [outcome.bytes.buffer as ArrayBuffer] : []),
);
