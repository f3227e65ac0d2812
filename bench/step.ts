// One measured step of the collection benchmark, run by bench/run.ts in a
// process of its own, so that its time and its peak memory belong to that
// step alone. Prints one JSON line:
//
//   {"ms": …, "cpu_ms": …, "max_rss_kb": …, "bytes"|"records"|…: …}
//
// `ms` is measured inside the process, from just before the step's work to
// just after it: Node's start and the loading of the TypeScript modules are
// not counted (bench/run.ts reports them apart). `cpu_ms` is the processor
// time (user and system, every thread) over the same span. `max_rss_kb` is
// the process's peak resident memory, start included.
//
//   node --import tsx bench/step.ts hash SOURCE          read + SHA-256 of every file, 1 MiB reads
//   node --import tsx bench/step.ts land SOURCE DATA     collectAll, deriveSessionData: false
//   node --import tsx bench/step.ts collect SOURCE DATA  collectAll with its default: land, then derive each .sd
//   node --import tsx bench/step.ts secretlint DATA      secretlint's recommended preset over every landed file, one call a file
//   node --import tsx bench/step.ts scan DATA            the redaction scan of every stored conversation (src/redaction/scan.ts)
//   node --import tsx bench/step.ts archive EXPORT FILE  the archive step: writeArchive of a finished export folder into FILE

import crypto from 'node:crypto';
import fs from 'node:fs';
import { claudeCodeAdapter } from '../src/adapters/claude-code/adapter.ts';
import { discoverSessions } from '../src/adapters/claude-code/discover.ts';
import { collectAll, landedTotals, type CollectAllReport } from '../src/collection/collect-all.ts';
import { converterFor } from '../src/adapters/dialects.ts';
import { storedSessions } from '../src/landing/session-folder.ts';
import { landedFilesOfSession } from '../src/landing/session-state.ts';
import { ruleSet } from '../src/redaction/rules.ts';
import { scanForSecrets } from '../src/redaction/scan.ts';
import { writeArchive } from '../src/bundle/archive.ts';
import { filesUnder } from '../scripts/files-under.ts';

const [step, source, data] = process.argv.slice(2);

function required(value: string | undefined, what: string): string {
  if (value === undefined) throw new Error(`bench/step.ts ${step}: ${what} is missing`);
  return value;
}


/** What a pass landed, and a failure for anything that is not a clean landing. */
function summary(report: CollectAllReport): Record<string, number> {
  const problems: string[] = [];
  for (const session of report.sessions) {
    if (session.locked !== undefined) problems.push(session.locked);
    problems.push(...session.unreadable);
    for (const outcome of session.sources) {
      if (outcome.status === 'conflict' || outcome.status === 'failed' || outcome.status === 'gone') problems.push(`${outcome.source}: ${outcome.status}: ${outcome.message}`);
    }
  }
  if (problems.length > 0) throw new Error(`the pass was not clean:\n${problems.slice(0, 10).join('\n')}`);
  const totals = landedTotals(report);
  return { sessions: report.sessions.length, files: totals.files, records: totals.records, bytes: totals.bytes };
}

async function run(): Promise<Record<string, unknown>> {
  switch (step) {
    case 'hash': {
      // The floor for any collector that must read and digest every byte:
      // one read pass in 1 MiB pieces through Node's SHA-256 (OpenSSL).
      const chunk = Buffer.allocUnsafe(1 << 20);
      let bytes = 0;
      let files = 0;
      for (const file of filesUnder(required(source, 'SOURCE'))) {
        const hash = crypto.createHash('sha256');
        const descriptor = fs.openSync(file, 'r');
        try {
          for (;;) {
            const got = fs.readSync(descriptor, chunk, 0, chunk.length, null);
            if (got === 0) break;
            hash.update(chunk.subarray(0, got));
            bytes += got;
          }
        } finally {
          fs.closeSync(descriptor);
        }
        hash.digest('hex');
        files++;
      }
      return { files, bytes };
    }
    case 'land':
    case 'collect': {
      // Discovery is part of every pass, so it is timed with the landing.
      const root = required(source, 'SOURCE');
      const report = collectAll({
        data: required(data, 'DATA'),
        adapter: claudeCodeAdapter,
        discovery: discoverSessions(root),
        selected: () => true,
        ...(step === 'land' ? { deriveSessionData: false } : {}),
      });
      return summary(report);
    }
    case 'secretlint': {
      // The rule engine alone, on the landed bytes as they are: the floor for
      // a scan that uses it, whatever the scan does around it.
      const { lintSource } = await import('@secretlint/core');
      const { creator } = await import('@secretlint/secretlint-rule-preset-recommend');
      const stored = required(source, 'DATA');
      let bytes = 0;
      let findings = 0;
      for (const session of storedSessions(stored)) {
        for (const landed of landedFilesOfSession(stored, session)) {
          const content = fs.readFileSync(landed.path, 'utf8');
          bytes += Buffer.byteLength(content);
          findings += (await lintSource({ source: { content, filePath: landed.path, ext: '', contentType: 'text' }, options: { config: { rules: [{ id: creator.meta.id, rule: creator }] } } })).messages.length;
        }
      }
      return { bytes, findings };
    }
    case 'scan': {
      const stored = required(source, 'DATA');
      const sessions = storedSessions(stored);
      let bytes = 0;
      for (const session of sessions) for (const landed of landedFilesOfSession(stored, session)) bytes += fs.statSync(landed.path).size;
      const plan = await scanForSecrets(stored, sessions, { rules: ruleSet(), converterFor });
      return { bytes, findings: plan.findings.length };
    }
    case 'archive': {
      const written = await writeArchive(required(source, 'EXPORT'), required(data, 'FILE'));
      return { bytes: written.bytes, entries: written.entries };
    }
  }
  throw new Error(`bench/step.ts: unknown step ${JSON.stringify(step)} (hash, land, collect, cli, secretlint, scan or archive)`);
}

const started = performance.now();
const cpuAtStart = process.cpuUsage();
const result = await run();
const ms = performance.now() - started;
// Processor time of every thread of the process (workers included) over the
// same span: on a machine shared with other work it changes far less than
// the time on the clock, which includes waiting for a core.
const cpu = process.cpuUsage(cpuAtStart);
process.stdout.write(`${JSON.stringify({ ms, cpu_ms: (cpu.user + cpu.system) / 1000, max_rss_kb: process.resourceUsage().maxRSS, ...result })}\n`);
