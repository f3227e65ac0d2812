// Flushing many files to the disk at once, from synchronous code.
//
// Every landed file, its `.sd` and its cursor must each be flushed, and a
// pass over many sources makes many flushes, each a wait on the disk when
// made one at a time. Flushes issued together overlap (on libuv's pool
// threads), so they wait for the disk once per batch. Collection is synchronous
// code, so a helper thread issues the flushes of one batch together while
// the calling thread waits on a shared flag; the order of the steps of a
// landing (files durable, then their names, then the cursor) stays exactly
// as it was, with each step a batch instead of one file.
//
// A few small files are flushed on the calling thread instead, as long as
// the helper has not been started: starting a thread costs far more than the
// few flushes of a pass that lands one appended line.

import fs from 'node:fs';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { syncFolder } from '../files/atomic-file.ts';

interface Helper {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly signal: Int32Array;
}

// At most this many files and folders, holding at most this many bytes
// between them, are flushed on the calling thread while there is no helper:
// a flush of the few megabytes a small pass writes takes milliseconds, and
// a larger one is worth overlapping with the landing that goes on meanwhile.
const ON_THIS_THREAD_FILES = 32;
const ON_THIS_THREAD_BYTES = 8 << 20;

export interface FlushedFile {
  readonly descriptor: number;
  readonly name: string;
  /** Bytes written to it: what its flush has to write out. */
  readonly size: number;
}

export interface Flushing {
  /** Returns once every flush is done; throws naming the first file that failed. */
  wait(): void;
}

/**
 * Flushes for one writer of many files (a collection pass), with the helper
 * thread it starts when a flush is large enough to need it. Closing it ends
 * the helper.
 */
export class Flusher {
  private helper: Helper | undefined;
  private outstanding: Flushing | undefined;

  /** True once a flush has needed the helper thread; for tests. */
  get helperStarted(): boolean {
    return this.helper !== undefined;
  }

  /**
   * Flushes every open descriptor and every folder to the disk, all at once.
   * Starts flushing and returns at once, so that the caller can go on with
   * other work while the disk writes: the flushes of a batch's landed bytes
   * take longest, and overlap the landing of the next batch this way. One
   * flushing at a time: the previous one must have been waited for.
   */
  start(files: readonly FlushedFile[], folders: readonly string[] = []): Flushing {
    if (this.outstanding) throw new Error('a flush is still outstanding; wait for it first');
    if (files.length === 0 && folders.length === 0) return { wait: () => {} };
    if (!this.helper && files.length + folders.length <= ON_THIS_THREAD_FILES && files.reduce((total, file) => total + file.size, 0) <= ON_THIS_THREAD_BYTES) {
      const failure = flushedHere(files, folders);
      return {
        wait: () => {
          if (failure) throw failure;
        },
      };
    }
    const { port, signal } = this.started();
    Atomics.store(signal, 0, 0);
    port.postMessage({ descriptors: files.map((file) => file.descriptor), folders: [...new Set(folders)] });
    const names = files.map((file) => file.name);
    let done = false;
    const flushing: Flushing = {
      wait: () => {
        if (done) return;
        done = true;
        this.outstanding = undefined;
        Atomics.wait(signal, 0, 0);
        const answer = receiveMessageOnPort(port)?.message as { failures: { index: number; message: string; code?: string }[] } | undefined;
        if (!answer) throw new Error('the flushing thread answered nothing');
        const [failure] = answer.failures;
        if (failure) throw notFlushed(names[failure.index]!, failure);
      },
    };
    this.outstanding = flushing;
    return flushing;
  }

  /** Ends the helper thread, if one was started; an outstanding flush is waited for first. */
  close(): void {
    try {
      this.outstanding?.wait();
    } catch {
      // Its caller was told, or has given up on it.
    }
    const helper = this.helper;
    this.helper = undefined;
    if (helper) {
      helper.port.close();
      void helper.worker.terminate();
    }
  }

  private started(): Helper {
    if (this.helper) return this.helper;
    const { port1, port2 } = new MessageChannel();
    const signal = new Int32Array(new SharedArrayBuffer(4));
    // Plain JavaScript with no TypeScript loader: a worker inherits the
    // process's `--import tsx` by default, and the loader would cost each
    // helper several times its own start in time and memory. Every collecting
    // thread starts one of these.
    const worker = new Worker(new URL('./flush-worker.mjs', import.meta.url), { workerData: { port: port2, signal }, transferList: [port2], execArgv: [] });
    // The helper must never keep a finished process alive.
    worker.unref();
    port1.unref();
    this.helper = { worker, port: port1, signal };
    return this.helper;
  }
}

/** Flushes one after another on this thread, as the helper does all at once; returns the first failure. */
function flushedHere(files: readonly FlushedFile[], folders: readonly string[]): Error | undefined {
  let failure: Error | undefined;
  for (const file of files) {
    try {
      fs.fsyncSync(file.descriptor);
    } catch (error) {
      failure ??= notFlushed(file.name, error as NodeJS.ErrnoException);
    }
  }
  for (const folder of new Set(folders)) syncFolder(folder);
  return failure;
}

function notFlushed(name: string, failure: { message: string; code?: string }): Error {
  return Object.assign(new Error(`${name}: could not be flushed to the disk: ${failure.message}`), { code: failure.code });
}
