// The work the evidence worker thread does: write the evidence pages of the
// conversations it takes (evidence-pages.ts, writeEvidence), while the
// site's children render their pages.

import { parentPort } from 'node:worker_threads';
import { serveWork } from '../../cores/work-on-cores.ts';
import { writeEvidence, type EvidenceOf, type EvidenceTask } from './evidence-pages.ts';

serveWork<EvidenceOf, EvidenceTask, string>('the evidence worker', parentPort!, (taken, task, report) => {
  for (const conversation of taken) {
    writeEvidence(task.bundle, task.out, [conversation], task.code);
    report(conversation.id);
  }
});
