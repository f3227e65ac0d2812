// What the site step hands the process that renders pages, the kept
// renderer (generator/render.mjs).
// One typed value, written by the export stage (generator/site.ts) and read
// once by the renderer's process, which opens a SiteReader on it
// (site-reader.ts): the bundle the pages are a function of, the highlight
// cache, and which conversations to render.

import fs from 'node:fs';
import type { ConversationSummary } from '../models/plan.ts';

export interface SiteInput {
  /** The bundle folder, whole: the site is a function of it alone. */
  readonly bundle: string;
  /** The highlight cache (highlighted.ts), outside the export. */
  readonly cache: string;
  /** Which conversations to render; without one, every conversation of the bundle is rendered and nothing is saved. */
  readonly selection?: SiteSelection;
}

/**
 * The conversations of the site, in order, and which of them this process
 * renders: the others' pages come from the cache of finished pages
 * (generator/page-store.ts), and only their summary and search entries are
 * read, from the plan saved when they were last rendered.
 */
export interface SiteSelection {
  readonly conversations: readonly SelectedConversation[];
  /** The site's code (generator/kept-renderer.ts, siteCode), which every page's digest takes in (view-digests.ts). */
  readonly code?: string;
}

export interface SelectedConversation {
  readonly id: string;
  readonly render: boolean;
  /** Where the plan of this conversation is saved or read; empty when it is not saved. */
  readonly plan: string;
  /**
   * The process id of the other build that renders this conversation, when
   * one does (generator/site.ts shares the rendering out between builds): its
   * plan is waited for rather than read at once.
   */
  readonly renderedBy?: number;
  /** The pages of this conversation's earlier render, to keep those that did not change (generator/page-store.ts). */
  readonly earlier?: EarlierPages;
}

/** A conversation's pages as an earlier render wrote them: the folder of its page files, its page digests (generator/page-store.ts), and its talks' sizes (talkSizesBeside). */
export interface EarlierPages {
  readonly files: string;
  readonly digests: string;
  readonly talks?: string;
}

/** What is kept of a rendered conversation for builds that do not render it again. */
export interface SavedPlan {
  readonly summary: ConversationSummary;
  /** Every page file of the conversation, from the site root. */
  readonly pages: string[];
}

/** The plan a build saved at `plan`. */
export function readSavedPlan(plan: string): SavedPlan {
  return JSON.parse(fs.readFileSync(plan, 'utf8')) as SavedPlan;
}

/** Where the sizes of the talks of the conversation whose plan is saved at `plan` are kept, beside it (generator/talk-pages.ts). */
export function talkSizesBeside(plan: string): string {
  return plan.replace(/\.json$/, '.talks.json');
}

/**
 * Where the search script of the conversation whose plan is saved at `plan`
 * is kept, beside it, as the site has it (searchScriptOf). Apart from the
 * plan, because the build reads every plan that it does not render and the
 * export then copies every conversation's script: inside the plans, the
 * scripts were parsed as JSON with every plan (bench/results/measurements-behind-choices.md).
 */
export function searchScriptBeside(plan: string): string {
  return plan.replace(/\.json$/, '.search.js');
}

