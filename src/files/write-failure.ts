// A write the file system refused: full, over quota, read-only, not
// permitted. Node's error for a failed write names the system call but not
// the file ("ENOSPC: no space left on device, write"), so each writer of
// files turns it into one that names the file it was writing, in words a
// person can act on; the command that meets it says what to do about the
// folder it is in (cli/commands/export.ts, collection's outcomes).

/** What each code means for the file being written; a failure with another code is no refusal of the file system's. */
const REASONS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space is left on its file system',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file is larger than its file system allows',
  EROFS: 'its file system is read-only',
  EACCES: 'permission is denied',
  EPERM: 'the operation is not permitted',
  EIO: 'the disk reported an input/output error',
};

/** Codes that mean the file system has no room left, as opposed to not letting anything be written. */
const NO_ROOM = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/** The code of a write the file system refused, or undefined for any other error; an error that wraps one (its `cause`) has its code. */
export function refusedWriteCode(error: unknown): string | undefined {
  for (let at = error, depth = 0; at !== undefined && at !== null && depth < 8; at = (at as Error).cause, depth++) {
    const code = (at as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && Object.hasOwn(REASONS, code)) return code;
  }
  return undefined;
}

/** Whether the code means the file system is out of room, so freeing space there (or writing elsewhere) helps. */
export function isOutOfRoom(code: string): boolean {
  return NO_ROOM.has(code);
}

/** Why the file system refused, with its code: `no space is left on its file system (ENOSPC)`. */
export function refusalOf(code: string): string {
  return `${REASONS[code] ?? 'the file system refused it'} (${code})`;
}

/** The failed write of one file, naming it: `<file>: could not be written: <reason> (<code>)`. */
export class WriteFailure extends Error {
  constructor(
    readonly file: string,
    readonly code: string,
    options?: ErrorOptions,
  ) {
    super(`${file}: could not be written: ${refusalOf(code)}`, options);
  }
}

/** `error` as a WriteFailure naming `file`, when it is a refused write that does not name a file yet; else `error` itself. */
export function namingFile(file: string, error: unknown): unknown {
  if (error instanceof WriteFailure) return error;
  const code = refusedWriteCode(error);
  return code === undefined ? error : new WriteFailure(file, code, { cause: error });
}
