// A size in bytes in words, for the components (through shown-text.ts) and
// the evidence pages. A module of its own, with no library behind it: the
// evidence worker imports it, and would otherwise load the components'
// libraries (anser, diff) for it.

export function bytes(count: number): string {
  if (count < 1024) return `${count} B`;
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KB`;
  return `${(count / 1024 / 1024).toFixed(1)} MB`;
}
