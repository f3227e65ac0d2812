// `sessionizer verify PATH [--deep]`: checks a storage root, an export folder
// or a `.tar.zst` from its files alone, with no source and no network. An
// archive is read as one stream, never extracted, `--deep` included.

import fs from 'node:fs';
import path from 'node:path';
import { CONVERTERS } from '../../adapters/dialects.ts';
import { verifyAssemblies, verifyChains } from '../../verify/chains.ts';
import { isExportFolder, verifyExport } from '../../verify/export.ts';
import { verifyArchive } from '../../verify/archive.ts';
import { verifyStorage } from '../../verify/storage.ts';
import { EXIT_OK, EXIT_REJECTED, parseCommandArguments, UsageError, type Io } from '../command.ts';

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
  const options = { deep: values.deep, converters: CONVERTERS };
  if (archive || isExportFolder(root)) {
    const report = archive ? await verifyArchive(root, options) : verifyExport(root, options);
    if (values.json) io.out(`${JSON.stringify(report)}\n`);
    else {
      for (const problem of report.problems) io.error(`error: ${problem.path}: ${problem.what}\n`);
      for (const note of report.notes) io.error(`note: ${note.path}: ${note.what}\n`);
      io.out(
        `verified ${archive ? 'archive' : 'export'} ${target}: ${report.files} files, root digest ${report.rootDigest ?? 'missing'}; ${report.landedFiles} landed files, ${report.records} records in ${report.sessions} sessions, ${report.rounds} rounds in ${report.chains} chains` +
          `${values.deep ? ', every .sd derived and every conversation assembled again' : ''}: ${report.problems.length === 0 ? 'all intact' : `${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`}\n`,
      );
    }
    return report.problems.length === 0 ? EXIT_OK : EXIT_REJECTED;
  }
  const { indexes, landed, ...storage } = verifyStorage(root, options);
  const chains = verifyChains(root, landed);
  const problems = [...storage.problems, ...chains.problems, ...(values.deep ? verifyAssemblies(root, indexes) : [])];
  if (values.json) {
    io.out(`${JSON.stringify({ ...storage, chains: chains.chains, rounds: chains.rounds, problems })}\n`);
  } else {
    for (const problem of problems) io.error(`error: ${problem.path}: ${problem.what}\n`);
    for (const note of storage.notes) io.error(`note: ${note.path}: ${note.what}\n`);
    io.out(
      `verified ${storage.landedFiles} landed files, ${storage.records} records in ${storage.sessions} sessions, and ${chains.rounds} rounds in ${chains.chains} chains${values.deep ? ', every .sd derived and every conversation assembled again' : ''}: ` +
        `${problems.length === 0 ? 'all intact' : `${problems.length} problem${problems.length === 1 ? '' : 's'}`}\n`,
    );
  }
  return problems.length === 0 ? EXIT_OK : EXIT_REJECTED;
}
