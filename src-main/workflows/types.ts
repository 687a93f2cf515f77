// The workflows' DTOs are part of the Api contract (src-preload/contract.ts).
export type {
  KeywordLang,
  CaptionLength,
  RunTarget,
  KeywordRunOptions,
  CaptionRunOptions,
  SkipReason,
  SkippedAsset,
  SkippedCounts,
  RunPreview,
  PerGroupSaving,
  RunStarted,
  RunKind,
  RunStatus,
  RunView,
  SuggestionState,
  SuggestionView,
  CaptionSuggestionView,
  AssetReview,
  AcceptSkipReason,
  AcceptResult,
  RevertResult,
} from '../../src-preload/contract';
import type { KeywordLang, CaptionLength } from '../../src-preload/contract';

export const KEYWORD_LANGS: readonly KeywordLang[] = ['en', 'ru', 'es', 'fr', 'de', 'pt', 'it'];
export const CAPTION_LENGTHS: readonly CaptionLength[] = ['short', 'normal', 'long'];
