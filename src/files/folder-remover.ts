// Removing a folder of thousands of files on a thread of its own, started
// before it is needed.
//
// A worker thread takes some 100 ms to start while the thread that starts it
// is busy, as the export's is with its archive when the earlier export is
// moved aside: the removal then began only as the archive ended, and the
// command waited for it (bench/results/measurements-behind-choices.md). A remover started early is
// ready when the folder comes; it holds the process open only while it has
// a folder to remove.
//
// Removing a folder whose files are hard links of others' changes their
// change times. The records of those files' stamps are settled by markers
// the remover writes as soon as the folder is gone (file-stamp.ts,
// StampsRecord), on its own thread rather than on the calling one, which is
// still busy with the archive.

import { Worker } from 'node:worker_threads';

// CommonJS evaluated as it is, and without the process's TypeScript loader.
const REMOVER = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
// Each file unlinked as its folder lists it and each folder removed once
// emptied: about half the calls of fs.rmSync, which looks at every entry
// first and tries to remove every folder before emptying it too. The
// listing says which entries are folders, without following a symbolic
// link, and Node looks at an entry whose kind the file system did not say.
const removeTree = (folder) => {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const inside = path.join(folder, entry.name);
    if (entry.isDirectory()) removeTree(inside);
    else unlinkIfThere(inside);
  }
  fs.rmdirSync(folder);
};
const unlinkIfThere = (file) => {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
};
// The folder given may be a symbolic link (an export folder named through
// one): the link goes, never what it names.
const remove = (folder) => {
  let kind;
  try {
    kind = fs.lstatSync(folder);
  } catch (error) {
    if (error.code === 'ENOENT') return;
    throw error;
  }
  if (kind.isDirectory()) removeTree(folder);
  else unlinkIfThere(folder);
};
parentPort.on('message', ({ folder, markers }) => {
  try {
    remove(folder);
  } catch (error) {
    parentPort.postMessage({ folder, removed: false, failure: error.message });
    return;
  }
  try {
    // A marker says what it is by its change time alone: written, never kept open.
    for (const marker of markers) fs.writeFileSync(marker, '');
  } catch (error) {
    parentPort.postMessage({ folder, removed: true, failure: error.message });
    return;
  }
  parentPort.postMessage({ folder, removed: true });
});
`;

/** Whether a folder was removed, and what went wrong: why it was not, or why its markers were not written. */
export interface Removal {
  readonly removed: boolean;
  readonly failure?: string;
}

export class FolderRemover {
  private readonly worker: Worker;
  /** What each folder given and not yet removed resolves to, by folder. */
  private readonly pending = new Map<string, (removal: Removal) => void>();
  /** Why the thread ended, once it has: every later folder fails with it. */
  private ended: string | undefined;

  constructor() {
    this.worker = new Worker(REMOVER, { eval: true, execArgv: [] });
    this.worker.on('message', ({ folder, ...removal }: Removal & { folder: string }) => this.settle(folder, removal));
    this.worker.on('error', (error) => this.end(error.message));
    this.worker.on('exit', () => this.end('the thread that removes it ended'));
    // After the listeners: a listener for messages holds the process open again.
    this.worker.unref();
  }

  /**
   * Removes `folder` and what it holds, then writes the `markers` of the
   * records of stamps it settles (file-stamp.ts, StampsRecord).
   */
  remove(folder: string, markers: readonly string[] = []): Promise<Removal> {
    if (this.ended !== undefined) return Promise.resolve({ removed: false, failure: this.ended });
    return new Promise((resolve) => {
      this.pending.set(folder, resolve);
      this.worker.ref();
      this.worker.postMessage({ folder, markers });
    });
  }

  /** Ends the thread; a folder still being removed, or given later, fails, and is left for whoever removes what an earlier process left. */
  close(): void {
    this.end('the remover was closed');
    void this.worker.terminate();
  }

  private settle(folder: string, removal: Removal): void {
    this.pending.get(folder)?.(removal);
    this.pending.delete(folder);
    if (this.pending.size === 0) this.worker.unref();
  }

  private end(why: string): void {
    this.ended ??= why;
    for (const folder of [...this.pending.keys()]) this.settle(folder, { removed: false, failure: why });
  }
}
