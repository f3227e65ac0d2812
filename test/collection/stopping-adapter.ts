// The Claude Code adapter, except that its converter stops the worker thread
// it runs on at the first record of one session: a collection worker that
// fails in the middle of a pass, for the parallel collection tests.
import { isMainThread } from 'node:worker_threads';
import { claudeCodeAdapter } from '../../src/adapters/claude-code/adapter.ts';
import type { Adapter } from '../../src/adapters/adapter.ts';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';

export const STOPPING_SESSION = FIXTURE_SESSIONS.rewind;
export const STOPPING_EXIT_CODE = 3;

export const stoppingAdapter: Adapter = {
  ...claudeCodeAdapter,
  location: { module: import.meta.url, export: 'stoppingAdapter' },
  converter: {
    dialect: claudeCodeAdapter.converter.dialect,
    convert(record, header, row, parsed) {
      if (!isMainThread && header.session === STOPPING_SESSION) process.exit(STOPPING_EXIT_CODE);
      return claudeCodeAdapter.converter.convert(record, header, row, parsed);
    },
  },
};
