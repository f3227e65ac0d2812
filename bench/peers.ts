// The first export beside a peer's, in turn: each tool's first export of the
// same projects root into fresh folders, several rounds in a rotating order,
// `sync` before each, timed by GNU time (its wall, and the peak of its
// largest single process). The machine is shared and its speed drifts by tens
// of percent within an hour, so what the table judges by is the ratio of two
// tools' times within one round, and the median of those ratios.
//
//   node --import tsx bench/peers.ts --root ROOT [--rounds 5] [--out FILE]
//     --peer 'COMMAND with {root} and {out}' [--peer-name NAME] NAME=CHECKOUT...
//
// Each NAME=CHECKOUT is a checkout of Sessionizer whose `npm ci` has run; the
// peer's command is run by `sh -c`, with {root} and {out} replaced
// (../shared/research/running-peers.md says how to run
// claude-code-transcripts here). After the timed rounds, one more export by
// each checkout is watched for the peak of every one of its processes, read
// from /proc (Linux only): GNU time names only the largest.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { treeCommit } from './corpus.ts';
import { median } from './median.ts';
import { timed, type Timed } from './timed.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { root: { type: 'string' }, rounds: { type: 'string', default: '5' }, peer: { type: 'string' }, 'peer-name': { type: 'string', default: 'the peer' }, out: { type: 'string' } },
});
if (values.root === undefined || values.peer === undefined || positionals.length === 0) {
  process.stderr.write("usage: node --import tsx bench/peers.ts --root ROOT [--rounds 5] [--out FILE] --peer 'COMMAND {root} {out}' [--peer-name NAME] NAME=CHECKOUT...\n");
  process.exit(2);
}
const root = path.resolve(values.root);
const rounds = Number(values.rounds);
const peerCommand = values.peer;
const checkouts = positionals.map((spec) => {
  const [name, checkout] = spec.split('=') as [string, string | undefined];
  if (checkout === undefined || !fs.existsSync(path.join(checkout, 'src/cli/sessionizer.mjs'))) throw new Error(`${spec}: not NAME=CHECKOUT of Sessionizer`);
  return { name, checkout: path.resolve(checkout) };
});
const PEER = 'peer';
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sessionizer-peers-'));

/** A fresh output folder for `name`, whatever its last run left. */
function freshFolder(name: string): string {
  const folder = path.join(scratch, name);
  fs.rmSync(folder, { recursive: true, force: true });
  fs.mkdirSync(folder);
  return folder;
}

function exportArgs(checkout: string, folder: string): string[] {
  return [path.join(checkout, 'src/cli/sessionizer.mjs'), 'export', '--source', root, '--data', path.join(folder, 'data'), '--out', path.join(folder, 'out')];
}

function runOnce(name: string): Timed {
  const folder = freshFolder(name);
  spawnSync('sync');
  if (name === PEER) return timed('sh', ['-c', peerCommand.replaceAll('{root}', root).replaceAll('{out}', path.join(folder, 'out'))], folder);
  const { checkout } = checkouts.find((tree) => tree.name === name)!;
  return timed(process.execPath, exportArgs(checkout, folder), checkout);
}

const names = [...checkouts.map(({ name }) => name), PEER];
const times = new Map(names.map((name) => [name, [] as Timed[]]));
for (let round = 0; round < rounds; round++) {
  for (let turn = 0; turn < names.length; turn++) {
    const name = names[(round + turn) % names.length]!;
    const run = runOnce(name);
    times.get(name)!.push(run);
    process.stderr.write(`round ${round + 1} ${name}: ${run.seconds.toFixed(2)} s, ${(run.peakKb / 1024).toFixed(0)} MB\n`);
  }
}

/** The peak (VmHWM) of every process of one export by `checkout`, polled from /proc, by what it runs. */
async function processPeaks(name: string, checkout: string): Promise<string[]> {
  const folder = freshFolder(name);
  const child = spawn(process.execPath, exportArgs(checkout, folder), { cwd: checkout, stdio: 'ignore' });
  const peaks = new Map<number, { kb: number; command: string }>();
  const poll = (): void => {
    const family = new Set([child.pid!]);
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (family.has(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))) family.add(Number(entry));
      } catch {
        // Ended between the listing and the read.
      }
    }
    for (const pid of family) {
      try {
        const kb = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
        const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').find((word) => word.endsWith('.mjs')) ?? 'node';
        if (kb > (peaks.get(pid)?.kb ?? 0)) peaks.set(pid, { kb, command: path.basename(command) });
      } catch {
        // Ended while read.
      }
    }
  };
  const polling = setInterval(poll, 20);
  await new Promise((resolve) => child.on('exit', resolve));
  clearInterval(polling);
  return [...peaks.values()].sort((a, b) => b.kb - a.kb).map(({ kb, command }) => `${command === 'sessionizer.mjs' ? 'the export' : command} ${(kb / 1024).toFixed(1)} MB`);
}

const ratiosOf = (name: string): number[] => times.get(name)!.map((run, round) => run.seconds / times.get(PEER)![round]!.seconds);
const seconds = (runs: Timed[]): string => runs.map((run) => run.seconds.toFixed(2)).join(', ');
const lines = [
  `# The first export beside the peer's, ${rounds} rounds in turn (${new Date().toISOString().slice(0, 10)})`,
  '',
  `Projects root: ${path.basename(root)}; ${checkouts.map(({ name, checkout }) => `${name} = ${treeCommit(checkout)}`).join('; ')}; ${PEER} = ${values['peer-name']}.`,
  'Wall seconds of each round, the ratio to the peer in the same round, and the largest single process (GNU time).',
  '',
  '| | seconds, round by round | median | ratio to the peer, round by round | median of the ratios | largest process |',
  '| --- | --- | ---: | --- | ---: | ---: |',
  ...names.map((name) => {
    const runs = times.get(name)!;
    const ratios = name === PEER ? undefined : ratiosOf(name);
    return `| ${name} | ${seconds(runs)} | ${median(runs.map((run) => run.seconds)).toFixed(2)} | ${ratios ? ratios.map((ratio) => ratio.toFixed(2)).join(', ') : ''} | ${ratios ? `**${median(ratios).toFixed(2)}**` : ''} | ${(Math.max(...runs.map((run) => run.peakKb)) / 1024).toFixed(0)} MB |`;
  }),
  '',
  'Every process of one more export by each checkout (VmHWM, read from /proc every 20 ms):',
  '',
];
for (const { name, checkout } of checkouts) lines.push(`- ${name}: ${(await processPeaks(name, checkout)).filter((line) => !line.endsWith(' 0.0 MB')).join(', ')}`);
fs.rmSync(scratch, { recursive: true, force: true });
const text = `${lines.join('\n')}\n`;
if (values.out !== undefined) fs.writeFileSync(values.out, text);
process.stdout.write(text);
