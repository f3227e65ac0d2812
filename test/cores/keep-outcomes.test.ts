import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARCHIVE_WORKER } from '../../src/bundle/archive.ts';
import type { FrameJob, FrameOutcome } from '../../src/bundle/frame-compressor.ts';
import { headerBytes } from '../../src/bundle/tar.ts';
import { workOnCores } from '../../src/cores/work-on-cores.ts';
import { temporaryFolder } from '../helpers.ts';

describe('work on cores whose outcomes go to onOutcome', () => {
  it('keeps them until the end only when asked to', async () => {
    const folder = temporaryFolder();
    fs.writeFileSync(path.join(folder, 'file'), 'bytes to compress');
    const header = headerBytes({ name: 'export/file', type: 'file', mode: 0o644, size: 17, mtime: new Date(0), uid: 0, gid: 0, uname: '', gname: '' });
    const jobs: FrameJob[] = [0, 1, 2].map((index) => ({ index, entries: [{ header, file: 'file', size: 17 }], end: false }));
    const run = async (keepOutcomes?: boolean): Promise<{ returned: FrameOutcome[]; seen: FrameOutcome[] }> => {
      const seen: FrameOutcome[] = [];
      const returned = await workOnCores<FrameJob, { folder: string }, FrameOutcome>({
        items: jobs,
        threads: 2,
        workersOnly: true,
        name: 'the archive worker',
        worker: ARCHIVE_WORKER,
        task: { folder },
        here: () => {},
        itemKey: (job) => String(job.index),
        outcomeKey: (outcome) => (outcome.piece === undefined ? String(outcome.index) : `${outcome.index} piece ${outcome.piece}`),
        lost: (job, why) => ({ index: job.index, failure: why }),
        onOutcome: (outcome) => seen.push(outcome),
        keepOutcomes,
      });
      return { returned, seen };
    };
    const kept = await run();
    expect(kept.returned).toEqual(kept.seen);
    const passedOn = await run(false);
    expect(passedOn.returned).toEqual([]);
    // Every frame's pieces and its end still reached onOutcome.
    expect(passedOn.seen.filter((outcome) => outcome.piece === undefined && outcome.failure === undefined).map((outcome) => outcome.index).sort()).toEqual([0, 1, 2]);
    expect(passedOn.seen.some((outcome) => outcome.bytes !== undefined && outcome.bytes.length > 0)).toBe(true);
  });
});
