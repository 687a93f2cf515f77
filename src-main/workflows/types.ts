// Shapes the keywording/captioning workflows show to callers (Api, CLI). Plain data, no
// secrets; proposed for src-preload/contract.ts so the renderer can import them as types.
import type { BatchPreview, SearchQuery } from '../../src-preload/contract';
import type { KeywordCheck, TextCheck } from './hygiene';

export type KeywordLang = 'en' | 'ru' | 'es' | 'fr' | 'de' | 'pt' | 'it';
export const KEYWORD_LANGS: readonly KeywordLang[] = ['en', 'ru', 'es', 'fr', 'de', 'pt', 'it'];
export type CaptionLength = 'short' | 'normal' | 'long';
export const CAPTION_LENGTHS: readonly CaptionLength[] = ['short', 'normal', 'long'];

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
}

export interface CaptionRunOptions {
  length?: CaptionLength;
  force?: boolean;
}

export type SkipReason = 'already_done' | 'unsupported' | 'offline';

export interface SkippedAsset {
  assetId: number;
  reason: SkipReason;
  /** For already_done: the run whose suggestions are still there to review. */
  runId?: number;
  message: string;
}

export interface RunPreview extends BatchPreview {
  /** Assets in the selection or search. */
  assets: number;
  skipped: SkippedAsset[];
}

export interface RunStarted {
  runId: number;
  batchId: string;
  /** Jobs queued (cache hits are done at once). */
  jobs: number;
  skipped: SkippedAsset[];
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
