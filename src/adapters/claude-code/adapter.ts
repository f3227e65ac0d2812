// The Claude Code adapter: everything the pipeline reaches Claude Code
// through, by the adapter registry.

import type { Adapter } from '../adapter.ts';
import { claudeCodeConverter } from './convert.ts';
import { discoverSessions } from './discover.ts';
import { sessionMatcher } from './filters.ts';
import { claudeCodeGlossary } from './glossary.ts';
import { writeRestoredTranscript } from './restore.ts';
import { describeSourceRoot, resolveSourceRoot } from './source-root.ts';
import { describeClaudeCodeTool } from './tools.ts';
import { claudeCodeSlashCommand, claudeCodeTitleText } from './titles.ts';

export const ADAPTER_NAME = 'claude-code/0.1.0';

export const claudeCodeAdapter: Adapter = {
  name: ADAPTER_NAME,
  location: { module: import.meta.url, export: 'claudeCodeAdapter' },
  converter: claudeCodeConverter,
  describeTool: describeClaudeCodeTool,
  titleText: claudeCodeTitleText,
  slashCommand: claudeCodeSlashCommand,
  recordId(line: Buffer): string {
    try {
      const id = (JSON.parse(line.toString('utf8')) as { uuid?: unknown }).uuid;
      return typeof id === 'string' ? id : '';
    } catch {
      return '';
    }
  },
  resolveSourceRoot,
  describeSourceRoot,
  discover: discoverSessions,
  sessionMatcher,
  glossary: claudeCodeGlossary,
  writeRestoredTranscript,
};
