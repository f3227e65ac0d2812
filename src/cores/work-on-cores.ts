// Work shared out between threads, one item at a time.
//
// Sessions are independent units of work: collection lands them and parse
// assembles them on every core. Every thread, the calling one included,
// takes the next item from one shared counter over the items sorted largest
// first, so the last ones to finish are small and every core stays busy to
// the end. The calling thread works beside the workers instead of waiting
// for them: one worker fewer to start for the same number of cores.
//
// A worker runs the kept command's own build of its module when the command
// runs from that bundle (cli/kept-command.mjs), with no TypeScript loader;
// under tsx it registers the loader first (typescript-worker.mjs), a cost
// each worker pays before it starts.

import os from 'node:os';
import { threadId, Worker } from 'node:worker_threads';

/** Threads to work on by default: one per core, the calling one included. */
export function defaultThreads(): number {
  return Math.max(1, os.availableParallelism());
}

/** The shared counters that share the items out. */
export interface Shares {
  /** One counter: the index of the next item to take. */
  readonly next: Int32Array;
  /** For each item, 1 + the id of the thread that took it; 0 while no thread has. */
  readonly takenBy: Int32Array;
}

export function sharesFor(items: number): Shares {
  return { next: new Int32Array(new SharedArrayBuffer(4)), takenBy: new Int32Array(new SharedArrayBuffer(4 * Math.max(1, items))) };
}

/** The items this thread takes from the shared counter, one at a time, as it is ready for the next. */
export function* takeInTurn<Item>(items: readonly Item[], shares: Shares): Generator<Item> {
  for (;;) {
    const index = Atomics.add(shares.next, 0, 1);
    if (index >= items.length) return;
    Atomics.store(shares.takenBy, index, threadId + 1);
    yield items[index]!;
  }
}

/** What a worker is sent: every item, the counters, and the rest of its task. */
export interface WorkerTask<Item, Task> {
  readonly items: readonly Item[];
  readonly shares: Shares;
  readonly task: Task;
}

/** What a worker says: each item's outcome as it is done, then that it is done. */
export type WorkerMessage<Outcome> = { type: 'outcome'; outcome: Outcome } | { type: 'done' } | { type: 'failed'; message: string };

// The kept command's bundle defines this as its own folder's URL; under tsx
// it is not defined.
declare const KEPT_COMMAND_FOLDER: string | undefined;

/**
 * The module a worker runs: `<name>.js` of the kept command's bundle, which
 * builds `source` under that name, or else `source` itself through tsx.
 */
export function workerModule(name: string, source: URL): { module: URL; workerData?: { module: string } } {
  if (typeof KEPT_COMMAND_FOLDER === 'string') return { module: new URL(`${name}.js`, KEPT_COMMAND_FOLDER) };
  return { module: new URL('./typescript-worker.mjs', import.meta.url), workerData: { module: source.href } };
}

export interface CoresWork<Item, Task, Outcome> {
  /** Largest first. */
  readonly items: readonly Item[];
  /** Threads, the calling one included. */
  readonly threads: number;
  /**
   * Work on `threads` worker threads alone, the calling thread only taking
   * their outcomes as they come: for the archive, whose calling thread
   * writes each frame as it comes; for an export's collection and parse,
   * whose calling thread keeps its heap small for the steps after them; and
   * for tests.
   */
  readonly workersOnly?: boolean;
  /** What a worker is called in a failure: "the collection worker". */
  readonly name: string;
  readonly worker: ReturnType<typeof workerModule>;
  readonly task: Task;
  /** This thread's share of the work: takes items from `taken` and reports each one's outcome. */
  readonly here: (taken: Iterable<Item>, report: (outcome: Outcome) => void) => void;
  readonly itemKey: (item: Item) => string;
  readonly outcomeKey: (outcome: Outcome) => string;
  /** The outcome of an item a failed worker took and never reported, `why` saying what happened to the worker. */
  readonly lost: (item: Item, why: string) => Outcome;
  readonly onOutcome?: (outcome: Outcome) => void;
  /**
   * False when onOutcome is where the outcomes go, and they are not to be
   * kept until the end: the archive's outcomes are its compressed bytes,
   * which grow with the export.
   */
  readonly keepOutcomes?: boolean;
  /**
   * The most megabytes each worker's young generation may take (Worker's
   * resourceLimits): V8 grows it to tens of megabytes when much of what is
   * made lives a while, as a thread holding a large session's index does,
   * and all of it stays resident. Unset, V8's default.
   */
  readonly youngGenerationMb?: number;
  /**
   * The most megabytes each worker's old generation may take (Worker's
   * resourceLimits; WORKER_OLD_GENERATION_MB). A worker that needs more
   * stops, and the items it had taken are `lost`. Unset, V8's default.
   */
  readonly oldGenerationMb?: number;
}

/**
 * The old generation of a worker that bounds it, in megabytes. V8 lets a
 * heap grow past what it holds alive before it collects again by a factor
 * that it sets from the heap's limit: up to 4 under the default limit of a
 * machine with gigabytes to spare, and about 1.6 under this one. A worker's
 * heap then stays near what it holds rather than growing to twice that and
 * more (bench/results/measurements-behind-choices.md); a gigabyte is far
 * more than the largest session's parse holds alive.
 */
export const WORKER_OLD_GENERATION_MB = 1024;

/**
 * Does the work on the threads; resolves with one outcome per item, in the
 * order they were reported (none when keepOutcomes is false). A worker that fails fails only the items it had
 * taken and not reported; the other threads take the rest.
 */
export async function workOnCores<Item, Task, Outcome>(work: CoresWork<Item, Task, Outcome>): Promise<Outcome[]> {
  const { items } = work;
  const shares = sharesFor(items.length);
  const outcomes: Outcome[] = [];
  const reported = new Set<string>();
  const report = (outcome: Outcome): void => {
    // Node delivers what a worker posted before it stopped ahead of its
    // 'exit'; should an outcome still come after the item was reported
    // lost, the first report stands, so that no item is reported twice.
    const key = work.outcomeKey(outcome);
    if (reported.has(key)) return;
    reported.add(key);
    if (work.keepOutcomes !== false) outcomes.push(outcome);
    work.onOutcome?.(outcome);
  };
  const count = Math.max(1, Math.min(work.workersOnly ? work.threads : work.threads - 1, items.length));
  const resourceLimits = {
    resourceLimits: {
      ...(work.youngGenerationMb !== undefined ? { maxYoungGenerationSizeMb: work.youngGenerationMb } : {}),
      ...(work.oldGenerationMb !== undefined ? { maxOldGenerationSizeMb: work.oldGenerationMb } : {}),
    },
  };
  const workers = Array.from({ length: count }, () => new Worker(work.worker.module, { workerData: work.worker.workerData, ...resourceLimits }));
  // A worker's threadId reads -1 once it has stopped, so it is kept now.
  const threadIds = workers.map((worker) => worker.threadId);
  // Each settles with undefined when its worker is done, or with why it failed.
  const finished = workers.map(
    (worker) =>
      new Promise<string | undefined>((resolve) => {
        worker.on('message', (message: WorkerMessage<Outcome>) => {
          if (message.type === 'outcome') report(message.outcome);
          else resolve(message.type === 'done' ? undefined : message.message);
        });
        worker.on('error', (error) => resolve(`${work.name} failed: ${error.message}`));
        worker.on('exit', (code) => resolve(`${work.name} stopped with exit code ${code}`));
      }),
  );
  try {
    const task: WorkerTask<Item, Task> = { items, shares, task: work.task };
    for (const worker of workers) worker.postMessage(task);
    if (!work.workersOnly) work.here(takeInTurn(items, shares), report);
    const failures = await Promise.all(finished);
    failures.forEach((failure, index) => {
      if (failure === undefined) return;
      const stopped = threadIds[index]! + 1;
      items.forEach((item, position) => {
        if (Atomics.load(shares.takenBy, position) === stopped && !reported.has(work.itemKey(item))) report(work.lost(item, failure));
      });
    });
    // Items no worker took, because every worker failed before it could.
    work.here(takeInTurn(items, shares), report);
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return outcomes;
}

/**
 * A report that takes outcomes in whatever order the threads finish them and
 * passes each on in the order of `keys`, as soon as it and every one before
 * it have come: a command's lines read as one thread's would, yet come as
 * the work is done.
 */
export function inTheOrderOf<Outcome>(keys: readonly string[], keyOf: (outcome: Outcome) => string, each: (outcome: Outcome) => void): (outcome: Outcome) => void {
  const come = new Map<string, Outcome>();
  let next = 0;
  return (outcome) => {
    come.set(keyOf(outcome), outcome);
    for (; next < keys.length && come.has(keys[next]!); next++) {
      each(come.get(keys[next]!)!);
      come.delete(keys[next]!);
    }
  };
}

/**
 * A worker's side: runs `work` on the items it takes, reporting each
 * outcome, and then says it is done, or why it failed. What `work` reported
 * before it failed stands.
 */
export function serveWork<Item, Task, Outcome>(
  name: string,
  port: import('node:worker_threads').MessagePort,
  work: (taken: Iterable<Item>, task: Task, report: (outcome: Outcome) => void) => void | Promise<void>,
  /** Memory an outcome hands over rather than has copied: it is the receiver's afterwards, and the sender's copy is gone. */
  handedOver: (outcome: Outcome) => ArrayBuffer[] = () => [],
): void {
  const post = (message: WorkerMessage<Outcome>, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
  port.on('message', async ({ items, shares, task }: WorkerTask<Item, Task>) => {
    try {
      await work(takeInTurn(items, shares), task, (outcome) => post({ type: 'outcome', outcome }, handedOver(outcome)));
      post({ type: 'done' });
    } catch (error) {
      post({ type: 'failed', message: `${name} failed: ${(error as Error).message}` });
    }
  });
}
