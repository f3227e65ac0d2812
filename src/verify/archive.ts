// Verifies a `.tar.zst` as a stream: it is decompressed and read entry by
// entry, every file hashed on the way, and nothing is ever written to disk.
//
// The archive layer is not trusted. Every entry must be a regular file or a
// folder under one top folder, at a safe path, and once: an absolute path, a
// `..`, a link of either kind, a device, a duplicate, or two names that differ
// only in case are each an error, reported and never followed. A truncated
// stream or a flipped bit (the frames carry checksums) is reported as damage.
// Then the same checks as for an export folder run on what was read: the
// root digest, the manifest, every file's size and hash, missing and extra
// files, the bundle's evidence (evidence.ts, fed each landed file and `.sd`
// as it streams past), and every round chain and branch record.
//
// With `deep`, each landed file's `.sd` is derived again as the file streams
// past and compared with the archived one, and at the end of the stream each
// conversation is assembled again from the rows derived again and compared
// with what its rounds fold to: one decompression, nothing written, and in
// whatever order the archive holds its entries.

import crypto from 'node:crypto';
import fs from 'node:fs';
import tar from 'tar-stream';
import { DecompressStream } from 'zstd-napi';
import { checkBranchRecord } from '../branches/explicit.ts';
import { BUNDLE } from '../bundle/manifest.ts';
import { MANIFEST, META_FILES, PLAIN_MANIFEST, ROOT_DIGEST, unsafePath } from '../bundle/manifest.ts';
import { ChainError, checkLinks, emptyFold, foldRound, parseRound } from '../session-flow/chain.ts';
import { compareAssembly } from './chains.ts';
import { EvidenceCheck, type ChunkSink } from './evidence.ts';
import { checkManifest, type ExportReport, type PresentFile } from './export.ts';
import type { Problem, VerifyOptions } from './storage.ts';

const ROUND = /^bundle\/_conversations\/([^/]+)\/rounds\/r(\d{6,})-[0-9a-f]{12}\.sf$/;
const CONVERSATION = /^bundle\/_conversations\/([^/]+)\//;
const BRANCH = /^bundle\/_conversations\/([^/]+)\/branches\/([^/]+\.json)$/;

// What a session's folder may hold besides its evidence, as for a folder
// (storage.ts): an export leaves these behind, but a bundle that holds one is
// not damaged. Anything else in a session's folder is out of place.
const SESSION_FILES = /^bundle\/[^_/][^/]*\/(session\.state|collect\.lock|session\.index|(streams|runs)\/[^/]+\/[^/]+\.cursor)$/;

export async function verifyArchive(file: string, options: VerifyOptions = {}): Promise<ExportReport> {
  const problems: Problem[] = [];
  const problem = (where: string, what: string): void => void problems.push({ path: where, what });
  const present = new Map<string, PresentFile>();
  const kept = new Map<string, Buffer>();
  const folded = new Map<string, string>();
  let top: string | undefined;
  const evidence = new EvidenceCheck(options);

  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const name = header.name;
    const drain = (): void => {
      stream.on('end', next);
      stream.resume();
    };
    const unsafe = unsafePath(name.replace(/\/$/, ''));
    if (unsafe) {
      problem(name, `an archive entry where ${unsafe}; it was not read`);
      return drain();
    }
    const [first, ...rest] = name.replace(/\/$/, '').split('/');
    top ??= first;
    if (first !== top) {
      problem(name, `outside the archive's one top folder ${top}`);
      return drain();
    }
    const relative = rest.join('/');
    if (header.type === 'directory') return drain();
    if (header.type !== 'file') {
      problem(name, `a ${header.type === 'symlink' ? 'symbolic link' : header.type === 'link' ? 'hard link' : `${header.type} entry`}; an export holds regular files only, and it was not followed`);
      return drain();
    }
    if (relative === '') {
      problem(name, 'a file where the top folder should be');
      return drain();
    }
    if (present.has(relative) || kept.has(relative)) {
      problem(name, 'a second entry with the same name');
      return drain();
    }
    const lower = relative.toLowerCase();
    const clash = folded.get(lower);
    if (clash !== undefined) problem(name, `differs only in case from ${top}/${clash}, which would collide on a case-insensitive disk`);
    folded.set(lower, relative);
    const hash = crypto.createHash('sha256');
    const keep = META_FILES.has(relative) || ROUND.test(relative) || BRANCH.test(relative);
    const inBundle = relative.startsWith(`${BUNDLE}/`) ? relative.slice(BUNDLE.length + 1) : undefined;
    let checked: ChunkSink | undefined;
    if (inBundle !== undefined && EvidenceCheck.holds(inBundle)) checked = evidence.file(inBundle);
    // As for a folder (storage.ts), only a session's folder is held to the layout.
    else if (inBundle !== undefined && inBundle.includes('/') && !/^[_.]/.test(inBundle) && !SESSION_FILES.test(relative)) problem(relative, 'a file the storage layout has no place for');
    const pieces: Buffer[] = [];
    let size = 0;
    stream.on('data', (data: unknown) => {
      const chunk = data as Buffer;
      hash.update(chunk);
      size += chunk.length;
      if (keep) pieces.push(chunk);
      checked?.push(chunk);
    });
    stream.on('end', () => {
      checked?.end();
      if (META_FILES.has(relative)) kept.set(relative, Buffer.concat(pieces));
      else {
        present.set(relative, { size, sha256: hash.digest('hex') });
        if (keep) kept.set(relative, Buffer.concat(pieces));
      }
      next();
    });
  });

  try {
    // tar-stream's streams are streamx streams, so they are piped rather than
    // handed to Node's pipeline; every error ends the read.
    await new Promise<void>((resolve, reject) => {
      const source = fs.createReadStream(file);
      const decompress = new DecompressStream();
      source.on('error', reject);
      decompress.on('error', reject);
      extract.on('error', reject);
      extract.on('finish', resolve);
      source.pipe(decompress).pipe(extract);
    });
  } catch (error) {
    problem(file, `the archive is cut short or damaged: ${(error as Error).message}`);
  }

  const checked = checkManifest(present, { manifest: kept.get(MANIFEST), rootDigest: kept.get(ROOT_DIGEST)?.toString('utf8'), plain: kept.get(PLAIN_MANIFEST)?.toString('utf8') });
  problems.push(...checked.problems);
  const verified = evidence.finish();
  problems.push(...verified.problems.map((entry) => ({ path: `${BUNDLE}/${entry.path}`, what: entry.what })));

  // Round chains and branch records, from the bytes held in memory. Each
  // round is parsed once, in the order its name gives (parseRound checks the
  // name against the header), and with `deep` folded as it is read.
  const chains = new Map<string, { round: number; relative: string }[]>();
  let rounds = 0;
  for (const [relative, bytes] of kept) {
    const round = ROUND.exec(relative);
    if (round) {
      rounds++;
      chains.set(round[1]!, [...(chains.get(round[1]!) ?? []), { round: Number(round[2]), relative }]);
      continue;
    }
    if (BRANCH.test(relative)) {
      const branch = checkBranchRecord(relative, bytes);
      if (!branch.intact) problem(relative, branch.problem!);
    }
  }
  for (const [conversation, files] of chains) {
    files.sort((a, b) => a.round - b.round);
    const folded = emptyFold();
    let readable = true;
    for (const { relative } of files) {
      try {
        const round = parseRound(kept.get(relative)!, relative);
        if (options.deep) foldRound(folded, round);
        else {
          const { entities: _entities, ...head } = round;
          folded.rounds.push(head);
        }
      } catch (error) {
        if (!(error instanceof ChainError)) throw error;
        problem(relative, error.message.replace(`${relative}: `, ''));
        readable = false;
      }
    }
    const links = checkLinks(folded.rounds);
    for (const link of links) {
      const [where, ...what] = link.split(': ');
      problem(where!, what.join(': '));
    }
    if (options.deep && readable && links.length === 0) {
      const mismatch = compareAssembly(conversation, folded, verified.indexes);
      if (mismatch) problem(`${BUNDLE}/_conversations/${conversation}`, mismatch);
    }
  }
  if (![...present.keys()].some((relative) => relative.startsWith(`${BUNDLE}/`))) problem(BUNDLE, 'the archive holds no bundle');
  return {
    files: checked.manifest?.files.length ?? 0,
    bytes: checked.bytes,
    rootDigest: kept.get(ROOT_DIGEST)?.toString('utf8').trim(),
    sessions: verified.sessions,
    landedFiles: verified.landedFiles,
    records: verified.records,
    chains: new Set([...present.keys()].flatMap((relative) => CONVERSATION.exec(relative)?.[1] ?? [])).size,
    rounds,
    problems,
    notes: [],
  };
}
