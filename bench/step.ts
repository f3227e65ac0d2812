// One measured step of the collection benchmark, run in a process of its own
// so that its time and its peak memory belong to it alone. Prints one JSON
// line: {"ms": …, "max_rss_kb": …, …}.
//
//   node --import tsx bench/step.ts hash CORPUS
//   node --import tsx bench/step.ts land CORPUS DATA [WORKERS]
//   node --import tsx bench/step.ts collect CORPUS DATA

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { claudeCodeAdapter } from '../src/adapters/claude-code/adapter.ts';
import { discoverSessions } from '../src/adapters/claude-code/discover.ts';
import { collectAllOnCores, landedTotals } from '../src/collection/collect-all.ts';
import { main } from '../src/cli/main.ts';

const [step, corpus, data, workers] = process.argv.slice(2);

function filesUnder(folder: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(full));
    else found.push(full);
  }
  return found;
}

async function run(): Promise<Record<string, unknown>> {
  switch (step) {
    case 'hash': {
      // The baseline in-process: every byte read once in 1 MiB pieces and
      // hashed with Node's SHA-256 (OpenSSL, with the processor's SHA
      // instructions where it has them).
      const chunk = Buffer.allocUnsafe(1 << 20);
      let bytes = 0;
      for (const file of filesUnder(corpus!)) {
        const hash = crypto.createHash('sha256');
        const descriptor = fs.openSync(file, 'r');
        for (;;) {
          const got = fs.readSync(descriptor, chunk, 0, chunk.length, null);
          if (got === 0) break;
          hash.update(chunk.subarray(0, got));
          bytes += got;
        }
        fs.closeSync(descriptor);
        hash.digest('hex');
      }
      return { bytes };
    }
    case 'land': {
      // Landing alone, no .sd: the collector's own work.
      const report = await collectAllOnCores({ data: data!, adapter: claudeCodeAdapter, discovery: discoverSessions(corpus!), selected: () => true, deriveSessionData: false, workers: Number(workers ?? 1) });
      return { records: landedTotals(report).records };
    }
    case 'collect': {
      // Exactly what `sessionizer collect --once` does, through its own entry point.
      let out = '';
      const code = await main(['collect', '--once', '--source', corpus!, '--data', data!, '--json'], { out: (text) => (out += text), error: () => {}, interactive: false });
      if (code !== 0) throw new Error(`collect exited ${code}`);
      const report = JSON.parse(out) as { totals: { records: number; files: number } };
      return { records: report.totals.records, files: report.totals.files };
    }
  }
  throw new Error(`unknown step ${step}`);
}

const started = performance.now();
const result = await run();
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ ms, max_rss_kb: process.resourceUsage().maxRSS, ...result })}\n`);
