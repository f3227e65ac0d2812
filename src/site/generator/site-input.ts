// What the site step hands the process that renders pages, the kept
// renderer (generator/render.mjs).
// One typed value, written by the export stage (generator/site.ts) and read
// once by the renderer's process, which opens a SiteReader on it
// (site-reader.ts): the bundle the pages are a function of, and which
// conversations to render.

import fs from 'node:fs';
import path from 'node:path';
import type { ConversationSummary } from '../models/plan.ts';
import { searchScriptOf } from '../models/page-files.ts';

export interface SiteInput {
  /** The bundle folder, whole: the site is a function of it alone. */
  readonly bundle: string;
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
  /**
   * When several builds render at once, how they share the conversations
   * out: each, when it is ready for another, claims the next of `order`
   * that no other build claimed first, by making its claim file in `folder`
   * (claimConversation). A build that starts late or meets slow
   * conversations renders fewer, and all end at about the same time: with
   * shares fixed beforehand, the real corpus's lead waited half a second
   * for the other's last plan and idled as long again. The order is the
   * largest first: the largest conversation is rendered by a child that has
   * rendered nothing yet, and the generated corpus's child that renders it
   * peaked at 185-187 MB, against 177-206 MB claimed in the bundle's order,
   * for about half a second more of its site step
   * (bench/results/measurements-behind-choices.md).
   */
  readonly claims?: { readonly folder: string; readonly order: readonly string[] };
  /**
   * Whether this build renders the pages that list every conversation (the
   * index, the search page, the glossary): every build but those that render
   * beside the lead, which does.
   */
  readonly siteWidePages?: boolean;
}

export interface SelectedConversation {
  readonly id: string;
  readonly render: boolean;
  /** Where the plan of this conversation is saved or read; empty when it is not saved. */
  readonly plan: string;
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

/**
 * Claims the conversation `id` for this process among builds that share
 * `claims`; false when another build claimed it first. The claim file is
 * made only if there is none (`wx`), which the system does at once for one
 * process alone, and it names the process: a build waiting for that
 * conversation's plan knows whom it waits for (claimedBy).
 */
export function claimConversation(claims: string, id: string): boolean {
  try {
    fs.writeFileSync(claimOf(claims, id), String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** The process that claimed the conversation `id` in `claims`: undefined when none has, 0 while its claim is being written. */
export function claimedBy(claims: string, id: string): number | undefined {
  try {
    // A claim file is made, then written: empty, it is being written.
    return Number(fs.readFileSync(claimOf(claims, id), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function claimOf(claims: string, id: string): string {
  return path.join(claims, id);
}

/** The plan a build saved at `plan`. */
export function readSavedPlan(plan: string): SavedPlan {
  return JSON.parse(fs.readFileSync(plan, 'utf8')) as SavedPlan;
}

/** The site files a renderer writes for the conversation `id` whose plan is saved at `plan`: the pages the plan names, and its search script (site-reader.ts). */
export function renderedFiles(id: string, plan: string): string[] {
  return [...readSavedPlan(plan).pages, searchScriptOf(id)];
}

/** Where the sizes of the talks of the conversation whose plan is saved at `plan` are kept, beside it (generator/talk-pages.ts). */
export function talkSizesBeside(plan: string): string {
  return plan.replace(/\.json$/, '.talks.json');
}

