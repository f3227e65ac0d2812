// Text from outside (a folder's name, a path, a title, an id, a tool's name)
// made safe to print on a terminal. A terminal acts on what it is sent: an
// escape sequence in a project folder's name would change the colours or the
// window's title, a carriage return would write over the line, a
// bidirectional override would show `gnp.exe` for `exe.png`. So every such
// character is shown escaped, visibly: the control characters (C0, DEL and
// C1, the newline and tab among them), the bidirectional controls (U+061C,
// U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) and the line and
// paragraph separators (U+2028, U+2029). Each is written `\uXXXX`, the form
// JSON gives a character, so that escaping JSON text leaves it exact JSON
// with the same value: JSON.stringify escapes C0 itself, but leaves C1, the
// bidirectional controls and the separators as they are.
//
// strip-ansi and its kind remove escape sequences, and a person then reads a
// name that is not the folder's; jsesc escapes none of C1 or the
// bidirectional controls. Hence this, written once.

const UNSAFE = /[\p{Cc}\p{Bidi_Control}\u2028\u2029]/u;
const UNSAFE_EVERYWHERE = new RegExp(UNSAFE.source, 'gu');
/** The same, but for the newline, which ends a line of output. */
const UNSAFE_IN_LINE = /[\0-\t\v-\x1f\x7f-\x9f\p{Bidi_Control}\u2028\u2029]/u;
const UNSAFE_IN_LINES = new RegExp(UNSAFE_IN_LINE.source, 'gu');

function escaped(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `text` with every character a terminal would act on, the newline too, shown escaped as `\uXXXX`. */
export function printable(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_EVERYWHERE, escaped) : text;
}

/** `text` as `printable` makes it, keeping its newlines: for output made of whole lines, JSON among them. */
export function printableLines(text: string): string {
  return UNSAFE_IN_LINE.test(text) ? text.replace(UNSAFE_IN_LINES, escaped) : text;
}
