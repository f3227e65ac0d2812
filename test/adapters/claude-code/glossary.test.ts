import { describe, expect, it } from 'vitest';
import { GLOSSARY, termFor } from '../../../src/adapters/claude-code/glossary.ts';
import { CLAIM_STATES, CORRELATION_QUALITIES, NODE_KINDS, RELATION_TYPES, UNRESOLVED_KINDS, UNRESOLVED_STATES } from '../../../src/model/structure.ts';
import { NOTICE_KINDS } from '../../../src/model/notices.ts';
import { CONTENT_STATES, PART_KINDS, PRODUCERS, RECORD_FLAGS, TRIGGERS } from '../../../src/model/vocabulary.ts';

// Every name the model can emit, in `.sd` and in `.sf`. Record-level role
// names that collide with another name are listed as role:<name>.
const RECORD_ROLES = ['id', 'parent', 'role:call', 'role:run', 'ts', 'trigger', 'continues', 'role:tool', 'child', 'batch', 'started_by', 'leaf', 'label', 'role:title', 'cwd', 'git_branch', 'role:prompt', 'project', 'model', 'stop', 'from', 'role:notice', 'usage'];

describe('the Claude Code glossary', () => {
  it('has an entry for every name the model can emit, each saying where to find it', () => {
    const names = [
      ...NODE_KINDS,
      ...Object.keys(RELATION_TYPES),
      ...PART_KINDS,
      ...Object.keys(RECORD_FLAGS),
      ...TRIGGERS,
      ...PRODUCERS,
      ...CONTENT_STATES,
      ...Object.keys(CLAIM_STATES),
      ...Object.keys(CORRELATION_QUALITIES),
      ...Object.keys(UNRESOLVED_KINDS),
      ...UNRESOLVED_STATES,
      ...Object.keys(NOTICE_KINDS),
      ...RECORD_ROLES,
    ];
    const missing = names.filter((name) => GLOSSARY[name] === undefined);
    expect(missing).toEqual([]);
    for (const name of names) expect(GLOSSARY[name]!.where.length, name).toBeGreaterThan(5);
  });

  it('names things in either vocabulary or both, and says when the runtime has no word', () => {
    expect(termFor('run', 'native')).toBe('promptId');
    expect(termFor('run', 'both')).toBe('run (promptId)');
    expect(termFor('talk', 'native')).toBe('talk');
    expect(GLOSSARY.talk!.native).toBe('');
    expect(termFor('llm.call', 'unified')).toBe('llm.call');
  });
});
