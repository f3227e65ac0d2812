// Progress for long work, drawn on a terminal only. In a pipe, or with
// --json, nothing is drawn: output there is for programs.

export interface Progress {
  update(text: string): void;
  done(): void;
}

export function progress(enabled: boolean, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!enabled) return { update() {}, done() {} };
  let last = 0;
  let drawn = false;
  return {
    update(text: string) {
      const now = Date.now();
      // Redrawing more often than a person can read only costs time.
      if (now - last < 100) return;
      last = now;
      stream.write(`\r\x1b[2K${text}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

export function rate(bytes: number, milliseconds: number): string {
  return milliseconds > 0 ? `${(bytes / 1e3 / milliseconds).toFixed(1)} MB/s` : '-';
}
