// `sessionizer verify PATH [--deep]`: checks a storage root, an export folder
// or a `.tar.zst` from its files alone, with no source and no network. An
// archive is read as one stream, never extracted; with `--deep`, its bundle
// alone is written out into a private temporary folder, for its site to be
// rendered again from.

import fs from 'node:fs';
import path from 'node:path';
import { CONVERTERS } from '../../adapters/dialects.ts';
import { verifyAssemblies, verifyChains } from '../../verify/chains.ts';
import { isExportFolder, verifyExport } from '../../verify/export.ts';
import { verifyArchive } from '../../verify/archive.ts';
import { verifyStorage } from '../../verify/storage.ts';
import { command, EXIT_OK, EXIT_REJECTED, line, type Given, type Io } from '../command.ts';

const OPTIONS = {
  deep: { type: 'boolean', description: 'also derive every .sd again, assemble every conversation again and render the site again from the bundle, to compare each with what the export holds' },
  json: { type: 'boolean', description: 'print the report as one line of JSON' },
} as const;

export const verify = command({
  name: 'verify',
  summary: 'check a storage root, an export folder or a .tar.zst (read as a stream, never extracted) from its files alone; --deep also derives every .sd again, assembles every conversation again and renders an export\'s site again, to compare each with what is there',
  operands: [{ name: 'PATH', required: true, description: 'a data folder (storage root), an export folder, or an export .tar.zst' }],
  options: OPTIONS,
  examples: ['sessionizer verify export.tar.zst --deep'],
  run: verifyPath,
});

async function verifyPath({ values, operands }: Given<typeof OPTIONS>, io: Io): Promise<number> {
  const target = operands[0]!;
  const root = path.resolve(target);
  if (!fs.existsSync(root)) {
    io.error(line(`sessionizer verify: ${target}: no such file or folder`));
    return EXIT_REJECTED;
  }
  const archive = !fs.statSync(root).isDirectory();
  const options = { deep: values.deep, converters: CONVERTERS };
  if (archive || isExportFolder(root)) {
    const report = archive ? await verifyArchive(root, options) : await verifyExport(root, options);
    if (values.json) io.out(`${JSON.stringify(report)}\n`);
    else {
      for (const problem of report.problems) io.error(line(`error: ${problem.path}: ${problem.what}`));
      for (const note of report.notes) io.error(line(`note: ${note.path}: ${note.what}`));
      io.out(
        line(
          `verified ${archive ? 'archive' : 'export'} ${target}: ${report.files} files, root digest ${report.rootDigest ?? 'missing'}; ${report.landedFiles} landed files, ${report.records} records in ${report.sessions} sessions, ${report.rounds} rounds in ${report.chains} chains` +
            `${values.deep ? `, every .sd derived and every conversation assembled again${report.siteFiles ? `, the site's ${report.siteFiles} files rendered again` : ''}` : ''}: ${report.problems.length === 0 ? 'all intact' : `${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`}`,
        ),
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
    for (const problem of problems) io.error(line(`error: ${problem.path}: ${problem.what}`));
    for (const note of storage.notes) io.error(line(`note: ${note.path}: ${note.what}`));
    io.out(
      `verified ${storage.landedFiles} landed files, ${storage.records} records in ${storage.sessions} sessions, and ${chains.rounds} rounds in ${chains.chains} chains${values.deep ? ', every .sd derived and every conversation assembled again' : ''}: ` +
        `${problems.length === 0 ? 'all intact' : `${problems.length} problem${problems.length === 1 ? '' : 's'}`}\n`,
    );
  }
  return problems.length === 0 ? EXIT_OK : EXIT_REJECTED;
}
