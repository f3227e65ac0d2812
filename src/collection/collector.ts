// Lands new source data: for each session, for each source, the bytes added
// since the last pass, as write-once landed files, each with its `.sd`
// derived from the same records as they land.
//
// The order of every step is what makes an interruption safe:
//
//   land the file and its `.sd` (temporary names, fsync, rename, 0444)
//   then commit the cursor
//
// A session's files take these steps together (commit-batch.ts), and the
// order holds for the batch: no cursor is committed before every landed file
// of the batch, and its name, is on the disk. A crash after landing and
// before the cursor re-lands the same records on the next pass. That is
// at-least-once on purpose: assembly removes duplicate records anyway,
// because Claude Code writes duplicates itself, so a repeat costs nothing,
// while the opposite order would lose data. A landed file left without its
// `.sd` is mended by the next pass, which derives every missing one before
// it lands anything of that session.
//
// A session is the unit of work. Its sequence counter spans all its streams,
// so one session is processed by one collector, under a lock, in one thread;
// sessions are independent of each other.

import fs from 'node:fs';
import { KnownFolders, overwriteInPlace } from '../files/atomic-file.ts';
import { BufferPool } from '../files/buffer-pool.ts';
import { Flusher } from '../landing/flush.ts';
import { SessionLockedError } from '../landing/lock.ts';
import { SessionFolder } from '../landing/session-folder.ts';
import { sessionStateText } from '../landing/session-state.ts';
import { deriveMissingSessionData } from '../session-data/derive.ts';
import type { DiscoveredSession } from '../adapters/adapter.ts';
import { CommitBatch, CommitError } from './commit-batch.ts';
import { failed, outcome, type CollectOptions, type SessionContext, type SessionOutcome, type SourceOutcome } from './outcome.ts';
import { collectSource } from './source-landing.ts';
import { markVanishedSources } from './vanished-sources.ts';

/** Collects one session. Never throws for a problem with one source: that source's outcome says what failed. */
export function collectSession(session: DiscoveredSession, options: CollectOptions): SessionOutcome {
  return collectSessions([session], options)[0]!;
}

/**
 * Collects sessions one after another, committing their landed files in
 * shared batches: a batch's two flush rounds cost the same for one session as
 * for many, and each is a wait on the disk that would be the largest part of
 * landing many small sessions if each paid for its own. A
 * session stays locked until its batch is committed, and its outcome is
 * reported only then. A failure of one session is its outcome; the others go on.
 * `sessions` is taken one at a time, as each is landed (parallel.ts shares
 * them out between threads this way).
 */
export function collectSessions(sessions: Iterable<DiscoveredSession>, options: CollectOptions, onSession?: (outcome: SessionOutcome) => void): SessionOutcome[] {
  const outcomes: SessionOutcome[] = [];
  const report = (outcome: SessionOutcome): void => {
    outcomes.push(outcome);
    onSession?.(outcome);
  };
  // The flushing thread, buffers and folders of this pass's writes, given up when it ends.
  const flusher = new Flusher();
  const writer = { buffers: new BufferPool(), folders: new KnownFolders() };
  const batch = new CommitBatch(flusher, writer);
  let waiting: (LandedSession & { generation: number })[] = [];
  // Sessions whose batch is committed are released and reported; every
  // waiting session is reported with the failure when a batch failed.
  const settle = (failure?: unknown): void => {
    const settled = failure === undefined ? waiting.filter((landed) => landed.generation <= batch.committedThrough) : waiting;
    waiting = waiting.filter((landed) => !settled.includes(landed));
    for (const landed of settled) {
      landed.release();
      report(failure === undefined ? landed.outcome : failed(landed.outcome.session, failure));
    }
  };
  const commit = (work: () => void): void => {
    try {
      work();
      settle();
    } catch (error) {
      settle(error);
    }
  };
  try {
    for (const session of sessions) {
      let landed: LandedSession;
      try {
        landed = landSession(session, options, batch, writer);
      } catch (error) {
        // A batch failed while this session was landing (CommitError, the
        // only error landSession throws): it and every session waiting on a batch failed.
        settle(error);
        report(failed(session.id, error));
        continue;
      }
      waiting.push({ ...landed, generation: batch.generation });
      settle();
      if (batch.full) commit(() => batch.commitInBackground());
    }
    commit(() => batch.commit());
  } finally {
    batch.abandon();
    flusher.close();
    settle('the pass stopped before this session was committed');
  }
  return outcomes;
}

interface LandedSession {
  readonly outcome: SessionOutcome;
  /** Releases the session's lock once its batch is committed. */
  readonly release: () => void;
}

// Lands one session's new data into the batch, and leaves the session locked.
// A failure of the session is its outcome; the only error thrown is a
// CommitError, when a batch failed while the session was landing.
function landSession(session: DiscoveredSession, options: CollectOptions, batch: CommitBatch, writer: { buffers: BufferPool; folders: KnownFolders }): LandedSession {
  const folder = new SessionFolder(options.data, session.id);
  let lock;
  try {
    lock = folder.lock();
  } catch (error) {
    if (error instanceof SessionLockedError) return { outcome: { session: session.id, locked: error.message, sources: [], mended: 0, unreadable: [] }, release: () => {} };
    // The folder made for the lock of a session new to this data folder,
    // left empty, would make the data folder one that is not a storage zone.
    folder.removeIfEmpty();
    return { outcome: failed(session.id, error), release: () => {} };
  }
  try {
    // Under the session's lock, what a collector or parse that died left
    // half-written here goes: no running process of this tool writes it.
    folder.removeLeftTemporaries();
    // Landed files of earlier passes without their `.sd`, mended before this
    // pass lands anything: later, a batch of this pass can have its landed
    // files in place while their `.sd` waits one more round (commit-batch.ts),
    // and mending those would write the same `.sd` twice.
    const mending = options.deriveSessionData === false ? { derived: 0, failures: [] } : deriveMissingSessionData(options.data, session.id, options.adapter.converter, folder.listing);
    const state = folder.state();
    const context: SessionContext = { ...options, ...writer, now: options.now ?? (() => new Date()), folder, nextSeq: state.nextSeq, batch };
    const outcomes: SourceOutcome[] = [];
    const visited = new Set<string>();
    for (const source of session.sources) {
      const cursorFile = folder.cursorFile(source.place, source.cursorKey);
      if (visited.has(cursorFile)) {
        outcomes.push(outcome(source, 'conflict', `another source of this session already lands in ${folder.cursorPlace(source.place, source.cursorKey)}; this one was left alone`));
        continue;
      }
      visited.add(cursorFile);
      outcomes.push(collectSource(context, source, cursorFile));
    }
    outcomes.push(...markVanishedSources(context, folder.cursorsBesides(visited)));
    let newest = 0;
    for (const source of session.sources) {
      try {
        newest = Math.max(newest, fs.statSync(source.path).mtimeMs);
      } catch {
        // Gone since discovery; markVanishedSources or the next pass reports it.
      }
    }
    // A session with nothing landed, ever (only empty files so far), leaves no
    // trace: an empty session folder would be a session with no data.
    const empty = context.nextSeq === 1 && !folder.hasState();
    if (!empty) {
      const next = { nextSeq: context.nextSeq, liveness: 'unknown', quietSince: newest > 0 ? new Date(newest).toISOString() : state.quietSince, lastScan: context.now().toISOString() } as const;
      // With nothing landed (a cursor or a `.sd` written, say), only the
      // times change, which no reader needs (the counter is taken from the
      // landed files whatever the state says, and readSessionState takes a
      // damaged value for none): written over the file where it is, they
      // cost no flush and no rename. A pass that finds nothing new at all
      // writes nothing (quietSession).
      if (context.nextSeq === state.nextSeq) overwriteInPlace(folder.stateFile, sessionStateText(next));
      else batch.replace(folder.stateFile, sessionStateText(next));
    }
    const held = lock;
    return {
      outcome: { session: session.id, sources: outcomes, mended: mending.derived, unreadable: mending.failures },
      release: () => {
        held.release();
        if (empty) folder.removeIfEmpty();
      },
    };
  } catch (error) {
    if (error instanceof CommitError) {
      // The batch and everything in it were dropped; nothing of this session is pending.
      lock.release();
      throw error;
    }
    // What this session put into the batch before the failure is committed
    // with it, cursors included, so the session stays locked until then:
    // another collector must not hand out the sequence numbers of files that
    // are landed but not yet renamed into place.
    const held = lock;
    return { outcome: failed(session.id, error), release: () => held.release() };
  }
}
