// Keywording and captioning runs, review of their suggestions, revert; keyword hygiene and the vocabulary.
// Types only; contract.ts re-exports every one.

import type { SearchQuery } from './library';
import type { BatchPreview } from './service';

export type KeywordLang = 'en' | 'ru' | 'es' | 'fr' | 'de' | 'pt' | 'it';
export type CaptionLength = 'short' | 'normal' | 'long';

/** A selection, or every asset a search finds (RAW+JPEG stacks folded as the grid shows them). */
export type RunTarget = { assetIds: number[] } | { query: SearchQuery };

export interface KeywordRunOptions {
  /** 1..50; the service's default (about 12) when absent. */
  numKeywords?: number;
  /** 0..1: only keywords scoring at least this. */
  threshold?: number;
  /** Language of the keywords (images; the service keywords video in English only). Default 'en'. */
  lang?: KeywordLang;
  colors?: boolean;
  numColors?: number;
  /** Analyse assets already keyworded with these parameters again (a cached answer still costs nothing). */
  force?: boolean;
  /**
   * One call per similar group: the group's pick (else its suggested best frame) is sent and
   * the other members receive its suggestions for review.
   */
  perGroup?: boolean;
}

export interface CaptionRunOptions {
  length?: CaptionLength;
  force?: boolean;
  /** As KeywordRunOptions.perGroup. */
  perGroup?: boolean;
}

/** What one call per similar group saves ("12 photos in 3 groups: 3 billed calls instead of 12"). */
export interface PerGroupSaving {
  /** Groups of two or more among the photos to send. */
  groups: number;
  /** Photos in those groups. */
  grouped: number;
  /** Calls sent: one per group plus one per photo in no group. */
  calls: number;
  /** Calls one per photo would have made. */
  instead: number;
  message: string;
}

export type SkipReason = 'already_done' | 'unsupported' | 'offline';

export interface SkippedAsset {
  assetId: number;
  reason: SkipReason;
  /** For already_done: the run whose suggestions are still there to review. */
  runId?: number;
  message: string;
}

/** How many assets were skipped, by reason (every one of them). */
export type SkippedCounts = Partial<Record<SkipReason, number>>;

export interface RunPreview extends BatchPreview {
  /** Assets in the selection or search. */
  assets: number;
  /**
   * The skipped assets with their reasons. The window's answer lists the first 100 (a run over
   * a million photos already done would send a million); skippedCounts counts every one.
   */
  skipped: SkippedAsset[];
  skippedCounts: SkippedCounts;
  /**
   * What to know before running, per asset (video keywording: a length outside the service's
   * recommended 5-60 s; a container it does not take, sent as an MP4 copy). Nothing is refused for it.
   * The window's answer lists the first 100.
   */
  warnings?: { assetId: number; message: string }[];
  /** With perGroup: the calls it saves. */
  perGroup?: PerGroupSaving;
}

export interface RunStarted {
  runId: number;
  batchId: string;
  /** Jobs queued (cache hits are done at once). */
  jobs: number;
  /** As in RunPreview: the window's answer lists the first 100; skippedCounts counts every one. */
  skipped: SkippedAsset[];
  skippedCounts: SkippedCounts;
}

export type RunKind = 'keywords' | 'caption';
export type RunStatus = 'running' | 'done' | 'reverted';

export interface RunView {
  id: number;
  kind: RunKind;
  params: KeywordRunOptions | CaptionRunOptions;
  lang: KeywordLang | null;
  createdAt: number;
  batchId: string;
  status: RunStatus;
  counts: { queued: number; done: number; failed: number; cancelled: number };
  /** Suggestions by state (keyword runs count keywords, caption runs captions). */
  suggestions: { pending: number; accepted: number; rejected: number };
}

export type SuggestionState = 'pending' | 'accepted' | 'rejected';

export interface SuggestionView {
  id: number;
  keyword: string;
  score: number;
  state: SuggestionState;
  lang: string;
  runId: number;
  /** Provenance: when the run was started and with which parameters. */
  createdAt: number;
  params: KeywordRunOptions;
  /** Already among the asset's keywords (accepted here, added by hand, or there before). */
  inAsset: boolean;
  /** On the user's exclude list: accepting it does nothing. */
  excluded: boolean;
  /** Received from the representative of its similar group (a per-group run), not analysed itself. */
  from?: { assetId: number; name: string };
}

export interface CaptionSuggestionView {
  id: number;
  text: string;
  /** What the service wrote (text may be the user's edit of it). */
  raw: string;
  length: CaptionLength;
  state: SuggestionState;
  acceptedAs: 'caption' | 'title' | null;
  runId: number;
  createdAt: number;
  /** Agency limits the text would break as a title or as a description. */
  warnings: TextCheck[];
  /** Received from the representative of its similar group (a per-group run). */
  from?: { assetId: number; name: string };
}

export interface AssetReview {
  assetId: number;
  keywords: string[];
  caption: string | null;
  title: string | null;
  /** One per keyword (the best-scoring suggestion of it), strongest first. */
  suggestions: SuggestionView[];
  captions: CaptionSuggestionView[];
  check: KeywordCheck;
  textWarnings: TextCheck[];
  /** The asset's last run failed for this reason (the file could not be read, the service refused it). */
  errors: { runId: number; message: string }[];
}

export type AcceptSkipReason = 'excluded' | 'limit' | 'already_present';

export interface AcceptResult {
  /** Keywords added to assets. */
  added: number;
  /** Assets whose keywords changed. */
  assetIds: number[];
  skipped: { assetId: number; keyword: string; reason: AcceptSkipReason }[];
  /** Required keywords added alongside. */
  required: number;
}

export interface RevertResult {
  /** null when the run had nothing left to revert. */
  description: string | null;
  assetIds: number[];
  keywordsRemoved: number;
  captionsRestored: number;
}

export type LimitPreset = 'default' | 'adobe' | 'shutterstock' | 'custom';

export interface KeywordLimit {
  preset: LimitPreset;
  /** Fewest keywords an agency accepts (0: no minimum). */
  min: number;
  /** Most keywords kept; accepting never goes past it (strongest suggestions win). */
  max: number;
}

export interface KeywordSettings {
  /** Never accepted from a suggestion (case-insensitive). */
  exclude: string[];
  /** Added to every asset that accepts suggestions, when missing. */
  required: string[];
  limit: KeywordLimit;
  /**
   * How a word new to the library is spelled (the library's existing spelling always wins):
   * 'byLanguage' (default): lower case where the language does not capitalise nouns, the
   * service's casing cleaned of ALL CAPS where it does (German); 'lower': always lower case;
   * 'asSent': as the service spelled it.
   */
  casing: 'byLanguage' | 'lower' | 'asSent';
  /**
   * Read-only: the casing an update replaced with the new default 'byLanguage' (libraries
   * saved before it held 'lower'), shown once in Settings › Keywords with the offer to keep
   * it; null once the user has chosen a casing (any save that sets `casing`).
   */
  casingChangedFrom: 'lower' | null;
  /** Write each keyword's synonyms into files with it (Lightroom's "Export Synonyms"); off by default. */
  exportSynonyms: boolean;
}

/** What setKeywordSettings changes: any of the settings (casingChangedFrom is read-only). */
export type KeywordSettingsPatch = Partial<Omit<KeywordSettings, 'limit' | 'casingChangedFrom'>> & { limit?: Partial<KeywordLimit> };

export type Agency = 'adobe' | 'shutterstock';

export interface KeywordCheck {
  count: number;
  min: number;
  max: number;
  preset: LimitPreset;
  ok: boolean;
  warnings: string[];
}

export interface TextCheck {
  field: 'title' | 'caption';
  length: number;
  max: number;
  agency: Agency;
  message: string;
}

export interface LibraryKeyword {
  name: string;
  count: number;
  /** The levels of a hierarchical keyword ('Animals|Cat' -> ['Animals', 'Cat']). */
  path: string[];
  /** Its synonyms, from the keyword list (absent when it has none). */
  synonyms?: string[];
  /** Lightroom's "Include on Export" is off for it ([name] in a keyword list). */
  notExported?: boolean;
}

/** What importing a keyword list did (counts), and the lines it could not read. */
export interface KeywordListImportResult {
  added: number;
  synonyms: number;
  existing: number;
  skipped: string[];
}

export interface VocabularyEditResult {
  /** null when nothing changed. */
  description: string | null;
  assetIds: number[];
}

export interface WorkflowsApi {
  /** How many billable calls a keyword run would make (cache hits and done assets excluded), and its cost under the caps. */
  previewKeywordRun(args: { target: RunTarget; options: KeywordRunOptions }): Promise<RunPreview>;
  startKeywordRun(args: { target: RunTarget; options: KeywordRunOptions }): Promise<RunStarted>;
  previewCaptionRun(args: { target: RunTarget; options: CaptionRunOptions }): Promise<RunPreview>;
  startCaptionRun(args: { target: RunTarget; options: CaptionRunOptions }): Promise<RunStarted>;
  listRuns(args: { limit?: number; assetId?: number }): Promise<RunView[]>;
  getAssetReview(args: { assetId: number; runId?: number }): Promise<AssetReview>;
  acceptSuggestions(args: { ids: number[] }): Promise<AcceptResult>;
  acceptAbove(args: { assetIds: number[]; minScore: number; runIds?: number[] }): Promise<AcceptResult>;
  acceptKeyword(args: { assetIds: number[]; keyword: string; runIds?: number[] }): Promise<AcceptResult>;
  rejectSuggestions(args: { ids: number[] }): Promise<number>;
  rejectPending(args: { assetIds: number[]; belowScore?: number; keyword?: string; runIds?: number[] }): Promise<number>;
  /** Move one keyword of an asset to another position; returns the new order. */
  moveKeyword(args: { assetId: number; from: number; to: number }): Promise<string[]>;
  editCaptionSuggestion(args: { id: number; text: string }): Promise<void>;
  acceptCaptions(args: { ids: number[]; as?: 'caption' | 'title' }): Promise<number[]>;
  rejectCaptions(args: { ids: number[] }): Promise<number>;
  /** Undo exactly what one AI run added, keeping every unrelated edit. */
  revertRun(args: { runId: number }): Promise<RevertResult>;
  getKeywordSettings(): Promise<KeywordSettings>;
  setKeywordSettings(args: { settings: KeywordSettingsPatch }): Promise<KeywordSettings>;
  checkKeywords(args: { keywords: string[] }): Promise<KeywordCheck>;
  checkTextLimits(args: { title?: string | null; caption?: string | null; agency?: Agency }): Promise<TextCheck[]>;
  listLibraryKeywords(): Promise<LibraryKeyword[]>;
  renameKeyword(args: { from: string; to: string; children?: boolean }): Promise<VocabularyEditResult>;
  mergeKeywords(args: { from: string[]; into: string; children?: boolean }): Promise<VocabularyEditResult>;
  deleteKeyword(args: { name: string; children?: boolean }): Promise<VocabularyEditResult>;
  /** Add a keyword list (Lightroom's text format, as read from the file the user chose) to the library's vocabulary. */
  importKeywordList(args: { text: string }): Promise<KeywordListImportResult>;
  /** Write the library's keyword list to `path`, which must come from pickSavePath. */
  exportKeywordList(args: { path: string }): Promise<{ path: string; lines: number }>;
}

export interface WorkflowsEvents {
  aiRun: RunView;
  suggestionsChanged: { runId: number | null; assetIds: number[] };
}
