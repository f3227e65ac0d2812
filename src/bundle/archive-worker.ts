// The work an archive worker thread does: take frames from the shared
// counter and compress each, reading its files, until none is left.

import { parentPort } from 'node:worker_threads';
import { serveWork } from '../cores/work-on-cores.ts';
import { FrameCompressor, type CompressedFrame, type FrameJob } from './frame-compressor.ts';

serveWork<FrameJob, { folder: string }, CompressedFrame>('the archive worker', parentPort!, (taken, task, report) => {
  const compressor = new FrameCompressor();
  for (const job of taken) report(compressor.compress(job, task.folder));
});
