// What Claude Code's markup in a title or a prompt means, for a title: the
// tags it writes around a slash command (<command-name>, <command-message>,
// <command-args>), around a shell command the person ran (<bash-input>), and
// around text it adds itself (a caveat, a command's output, a reminder, the
// file open in the editor, hook output). A custom title can hold any of them:
// Claude Code titles a forked session after its first message, markup and
// all ("<local-command-caveat>Caveat: The messages below… (Fork)").

/** Elements whose content Claude Code wrote itself: no part of a title. */
const RUNTIME_ELEMENTS = [
  'local-command-caveat',
  'local-command-stdout',
  'local-command-stderr',
  'bash-stdout',
  'bash-stderr',
  'system-reminder',
  'ide_opened_file',
  'ide_selection',
  'session-start-hook',
  'user-prompt-submit-hook',
  'task-notification',
];

/** Text Claude Code writes into the person's role with no tag around it. */
const RUNTIME_OPENINGS = ['Caveat: The messages below', '[Request interrupted by user'];

const COMMAND_ELEMENTS = ['command-name', 'command-message', 'command-args'];

// Only ASCII white space: a text read as a string of bytes (one character a
// byte) holds bytes of other characters that \s would match.
const SPACE = '[ \\t\\r\\n]';

/** The content of the first `name` element of `text`, when it has one; an element cut short by the end of the text runs to its end. */
function elementContent(text: string, name: string): string | undefined {
  const open = text.indexOf(`<${name}>`);
  if (open < 0) return undefined;
  const start = open + name.length + 2;
  const close = text.indexOf(`</${name}>`, start);
  return text.slice(start, close < 0 ? text.length : close);
}

/** `text` without every `name` element, an element cut short by the end of the text taken to its end. */
function withoutElement(text: string, name: string): string {
  let left = text;
  for (let open = left.indexOf(`<${name}>`); open >= 0; open = left.indexOf(`<${name}>`, open)) {
    const close = left.indexOf(`</${name}>`, open);
    left = close < 0 ? left.slice(0, open) : `${left.slice(0, open)} ${left.slice(close + name.length + 3)}`;
  }
  return left;
}

function trimmed(text: string): string {
  return text.replace(new RegExp(`^${SPACE}+|${SPACE}+$`, 'g'), '');
}

/**
 * The slash command a Claude Code command record's text holds, as the person
 * typed it: its name with its slash, then its arguments when it has any
 * (`/review-pr 123`); undefined when the text names no slash command.
 */
export function claudeCodeSlashCommand(text: string): string | undefined {
  const name = elementContent(text, 'command-name');
  if (name === undefined) return undefined;
  const command = trimmed(name);
  if (command === '') return undefined;
  const args = trimmed(elementContent(text, 'command-args') ?? '').replace(new RegExp(`${SPACE}+`, 'g'), ' ');
  return `${command.startsWith('/') ? command : `/${command}`}${args !== '' ? ` ${args}` : ''}`;
}

/**
 * A title or a prompt without Claude Code's markup: a slash command as the
 * person typed it, a shell command after `!` as Claude Code shows it, and
 * text Claude Code added taken out. Undefined when nothing is left, or when
 * what is left is Claude Code's own text (a caveat, an interruption):
 * such a text titles nothing.
 */
export function claudeCodeTitleText(text: string): string | undefined {
  let left = text;
  const command = claudeCodeSlashCommand(left);
  for (const name of COMMAND_ELEMENTS) left = withoutElement(left, name);
  if (command !== undefined) left = `${command} ${left}`;
  for (const name of RUNTIME_ELEMENTS) left = withoutElement(left, name);
  const shell = elementContent(left, 'bash-input');
  if (shell !== undefined) left = `! ${trimmed(shell)} ${withoutElement(left, 'bash-input')}`;
  left = trimmed(left);
  if (left === '' || RUNTIME_OPENINGS.some((opening) => left.startsWith(opening))) return undefined;
  return left;
}
