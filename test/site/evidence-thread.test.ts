// The evidence pages are the same bytes whether the calling thread writes
// them, as it does for a few conversations, or a worker thread does, as for
// many (evidence-pages.ts, writeEvidenceOnThread).

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSIONS } from '../../scripts/write-fixtures.ts';
import { writeEvidenceOnThread } from '../../src/site/generator/evidence-pages.ts';
import { expectSameFiles, filesOf, parsedFixtures, temporaryFolder } from '../helpers.ts';

describe('the evidence pages written for the site', () => {
  it('are the same on the calling thread as on a worker thread', { timeout: 120_000 }, async () => {
    const sessions = [FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.bareStringResult];
    const { data } = parsedFixtures(sessions);
    const written = await Promise.all(
      [undefined, 0].map(async (mostBytesHere) => {
        const folder = temporaryFolder();
        const conversations = sessions.map((id) => ({ id, plan: path.join(folder, 'plans', `${id}.json`) }));
        await writeEvidenceOnThread(data, path.join(folder, 'staging'), conversations, 'code', mostBytesHere);
        return { pages: filesOf(path.join(folder, 'staging')), records: filesOf(path.join(folder, 'plans')) };
      }),
    );
    const [here, onWorker] = written;
    expect(here!.pages.size).toBeGreaterThan(0);
    expectSameFiles(onWorker!.pages, here!.pages);
    expectSameFiles(onWorker!.records, here!.records);
  });
});
