// State files are plain text, one `key value` pair a line, so a person can
// read them with cat and a shell script can read them with grep. Streams get
// envelopes; state files stay simple (seed design-notes/01 §2.3a).

import fs from 'node:fs';

export type StateValues = Map<string, string>;

export function formatState(values: Iterable<[string, string | number | undefined]>): string {
  let text = '';
  for (const [key, value] of values) {
    if (value === undefined) continue;
    const written = String(value);
    // A value is one line. A line break inside one would make the next key
    // unreadable, so it is escaped rather than trusted.
    text += `${key} ${written.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n`;
  }
  return text;
}

export function parseState(text: string): StateValues {
  const values: StateValues = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.indexOf(' ');
    const key = space < 0 ? line : line.slice(0, space);
    const value = space < 0 ? '' : line.slice(space + 1);
    values.set(key, value.replace(/\\(n|\\)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : '\\')));
  }
  return values;
}

/** Reads a state file, or undefined when there is none yet. */
export function readState(file: string): StateValues | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseState(text);
}

/** A whole number from a state file, naming the file and key when it is not one. */
export function wholeNumber(values: StateValues, key: string, file: string): number {
  const text = values.get(key);
  const value = Number(text);
  if (text === undefined || text === '' || !Number.isSafeInteger(value) || value < 0) {
    throw new Error(`${file}: "${key}" is ${text === undefined ? 'missing' : `not a whole number: ${text}`}`);
  }
  return value;
}
