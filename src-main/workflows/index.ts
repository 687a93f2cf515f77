// Keywording and captioning workflows: AI runs through the job queue, suggestions and their
// review, keyword hygiene and stock checks, the library-wide vocabulary, reverting a run.
export {
  attachWorkflows, sweepRuns, collectJob, previewKeywordRun, startKeywordRun, previewCaptionRun, startCaptionRun, resolveTarget,
  getRun, listRuns, runAssets, onWorkflowEvent, type WorkflowEvents,
} from './runs';
export {
  getAssetReview, acceptSuggestions, acceptAbove, acceptKeyword, rejectSuggestions, rejectPending, resetSuggestions, moveKeyword,
  editCaptionSuggestion, acceptCaptions, rejectCaptions, pendingCaptionIds,
} from './review';
export { revertRun } from './revert';
export { listLibraryKeywords, renameKeyword, mergeKeywords, deleteKeyword, type LibraryKeyword, type VocabularyEditResult } from './vocabulary';
export {
  getKeywordSettings, setKeywordSettings, checkKeywords, checkTextLimits, cleanKeyword, Vocabulary, SettingsError, LIMIT_PRESETS, TEXT_LIMITS,
  DEFAULT_SETTINGS, type KeywordSettings, type KeywordLimit, type LimitPreset, type KeywordCheck, type TextCheck, type Agency,
} from './hygiene';
export type * from './types';
export { KEYWORD_LANGS, CAPTION_LENGTHS } from './types';
export { runToEnd, type RunOutcome } from './wait';
