// The Claude Code adapter as the collector sees it: its name and version for
// every landed header, its converter to `.sd`, how to read a record's id,
// and what its tools are in the model's words.

import type { Adapter } from '../../collection/source.ts';
import { claudeCodeConverter } from './convert.ts';
import { describeClaudeCodeTool } from './tools.ts';
import { GLOSSARY, GLOSSARY_DIALECT } from './glossary.ts';

export const ADAPTER_NAME = 'claude-code/0.1.0';

export const claudeCodeAdapter: Adapter = {
  name: ADAPTER_NAME,
  location: { module: import.meta.url, export: 'claudeCodeAdapter' },
  converter: claudeCodeConverter,
  describeTool: describeClaudeCodeTool,
  glossary: { dialect: GLOSSARY_DIALECT, entries: GLOSSARY },
  recordId(line: Buffer): string {
    try {
      const id = (JSON.parse(line.toString('utf8')) as { uuid?: unknown }).uuid;
      return typeof id === 'string' ? id : '';
    } catch {
      return '';
    }
  },
};
