// The work the evidence worker thread does: write the evidence pages of the
// conversations it takes (evidence-pages.ts, writeEvidenceTaken), while the
// site's children render their pages.

import { parentPort } from 'node:worker_threads';
import { serveWork } from '../../cores/work-on-cores.ts';
import { writeEvidenceTaken, type EvidenceOf, type EvidenceTask } from './evidence-pages.ts';

serveWork<EvidenceOf, EvidenceTask, string>('the evidence worker', parentPort!, writeEvidenceTaken);
