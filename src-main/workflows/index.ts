// Keywording and captioning workflows: AI runs through the job queue, suggestions and their
// review, keyword hygiene and stock checks, the library-wide vocabulary, reverting a run.
export {
  attachWorkflows, sweepRuns, collectJobs, previewKeywordRun, startKeywordRun, previewCaptionRun, startCaptionRun, resolveTarget, forWindow,
  getRun, listRuns, runAssets, onWorkflowEvent, type WorkflowEvents,
} from './runs';
export {
  getAssetReview, acceptSuggestions, acceptAbove, acceptKeyword, rejectSuggestions, rejectPending, resetSuggestions, moveKeyword,
  editCaptionSuggestion, acceptCaptions, rejectCaptions, pendingCaptionIds,
} from './review';
export { revertRun } from './revert';
export { listLibraryKeywords, renameKeyword, mergeKeywords, deleteKeyword, type LibraryKeyword, type VocabularyEditResult } from './vocabulary';
export { getKeywordSettings, setKeywordSettings, cleanKeyword, Vocabulary, SettingsError, DEFAULT_SETTINGS } from './hygiene';
export type * from './types';
export { KEYWORD_LANGS, CAPTION_LENGTHS } from './types';
export { runToEnd, type RunOutcome } from './wait';
