// `sessionizer verify PATH [--deep]`: checks a storage root from its files
// alone. Export folders and archives arrive with the bundle.

import fs from 'node:fs';
import path from 'node:path';
import { converterFor } from '../../adapters/dialects.ts';
import { verifyChains } from '../../verify/chains.ts';
import { isExportFolder, verifyExport } from '../../verify/export.ts';
import { verifyArchive } from '../../verify/archive.ts';
import { verifyStorage } from '../../verify/storage.ts';
import { EXIT_OK, EXIT_REJECTED, EXIT_USAGE, parseCommandArguments, UsageError, type Io } from '../command.ts';

export async function verify(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArguments('verify', argv, { deep: { type: 'boolean' }, json: { type: 'boolean' } }, 1);
  const target = positionals[0];
  if (target === undefined) throw new UsageError('verify: PATH is missing');
  const root = path.resolve(target);
  if (!fs.existsSync(root)) {
    io.error(`sessionizer verify: ${target}: no such file or folder\n`);
    return EXIT_REJECTED;
  }
  const archive = !fs.statSync(root).isDirectory();
  if (archive && values.deep) {
    io.error(`sessionizer verify: ${target}: --deep derives and assembles again from files, and an archive is only ever read as a stream; extract it (tar --zstd -xf) and verify the folder with --deep\n`);
    return EXIT_USAGE;
  }
  if (archive || isExportFolder(root)) {
    const report = archive ? await verifyArchive(root) : verifyExport(root, { deep: values.deep, converterFor });
    if (values.json) io.out(`${JSON.stringify(report)}\n`);
    else {
      for (const problem of report.problems) io.error(`error: ${problem.path}: ${problem.what}\n`);
      for (const note of report.notes) io.error(`note: ${note.path}: ${note.what}\n`);
      io.out(`verified ${archive ? 'archive' : 'export'} ${target}: ${report.files} files, root digest ${report.rootDigest ?? 'missing'}${values.deep ? ', every .sd derived and every conversation assembled again' : ''}: ${report.problems.length === 0 ? 'all intact' : `${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`}\n`);
    }
    return report.problems.length === 0 ? EXIT_OK : EXIT_REJECTED;
  }
  const storage = verifyStorage(root, { deep: values.deep, converterFor });
  const chains = verifyChains(root);
  const problems = [...storage.problems, ...chains.problems];
  if (values.json) {
    io.out(`${JSON.stringify({ ...storage, chains: chains.chains, rounds: chains.rounds, problems })}\n`);
  } else {
    for (const problem of problems) io.error(`error: ${problem.path}: ${problem.what}\n`);
    for (const note of storage.notes) io.error(`note: ${note.path}: ${note.what}\n`);
    io.out(
      `verified ${storage.landedFiles} landed files, ${storage.records} records in ${storage.sessions} sessions${values.deep ? ', every .sd derived again' : ''}, and ${chains.rounds} rounds in ${chains.chains} chains: ` +
        `${problems.length === 0 ? 'all intact' : `${problems.length} problem${problems.length === 1 ? '' : 's'}`}\n`,
    );
  }
  return problems.length === 0 ? EXIT_OK : EXIT_REJECTED;
}
