// Which sessions to collect, decided per SESSION, never per folder.
//
// A session's files can sit under several project folders, and a child agent
// that ran in a scratch folder must not cut its stream out of the session, nor
// get the whole conversation excluded. So a pattern is matched against the
// session's primary folder (the one holding its main transcript), against
// every one of its folders when the main transcript was pruned, and against
// its id.
//
// A pattern that starts with "/" is a real path. Claude Code names a project
// folder by its working directory with "/", "." and spaces replaced by "-"
// (/Users/me/my.app → -Users-me-my-app), which cannot be reversed, so the path
// is converted forward and compared with the folder name. Anything else is a
// glob on the folder name or the session id. "*" and "**" both match any run of
// characters: a folder name has no "/" left to stop at.

import type { SessionFilter, SessionMatcher } from '../adapter.ts';

export function projectFolderName(realPath: string): string {
  return realPath.replace(/[/. ]/g, '-');
}

function patternExpression(pattern: string): RegExp {
  const name = pattern.startsWith('/') ? projectFolderName(pattern) : pattern;
  let expression = '';
  for (let i = 0; i < name.length; i++) {
    const character = name[i]!;
    if (character === '*') {
      while (name[i + 1] === '*') i++;
      expression += '.*';
    } else if (character === '?') {
      expression += '.';
    } else {
      expression += character.replace(/[\\^$+.()|[\]{}]/g, '\\$&');
    }
  }
  return new RegExp(`^${expression}$`);
}

export function sessionMatcher(filter: SessionFilter): SessionMatcher {
  const include = filter.include.map(patternExpression);
  const exclude = filter.exclude.map(patternExpression);
  return (session) => {
    const names = [session.id, ...(session.primary !== undefined ? [session.primary] : session.folders)];
    const matches = (expression: RegExp): boolean => names.some((name) => expression.test(name));
    if (include.length > 0 && !include.some(matches)) return false;
    return !exclude.some(matches);
  };
}
