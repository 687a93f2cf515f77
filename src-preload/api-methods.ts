import type { ApiMethod } from './contract';

/**
 * The runtime list of Api method names: preload exposes one function per name, the e2e
 * bridge does the same, and main registers one handler per name. The type check below
 * fails the build if a method of the contract is missing here.
 */
export const API_METHODS = [
  'appInfo',
  'listFolders',
  'addFolder',
  'removeFolder',
  'relinkFolder',
  'rescan',
  'cancelScan',
  'pickFolder',
  'search',
  'searchIds',
  'getAsset',
  'facets',
  'editKeywords',
  'setKeywords',
  'setCaption',
  'setTitle',
  'setRating',
  'undo',
  'listKeywords',
  'serviceSettings',
  'setServiceUrl',
  'setCredentials',
  'removeCredentials',
  'testConnection',
  'queueStatus',
  'listBatches',
  'listJobs',
  'controlQueue',
  'getCaps',
  'setCaps',
  'previewKeywordRun',
  'startKeywordRun',
  'previewCaptionRun',
  'startCaptionRun',
  'listRuns',
  'getAssetReview',
  'acceptSuggestions',
  'acceptAbove',
  'acceptKeyword',
  'rejectSuggestions',
  'rejectPending',
  'moveKeyword',
  'editCaptionSuggestion',
  'acceptCaptions',
  'rejectCaptions',
  'revertRun',
  'getKeywordSettings',
  'setKeywordSettings',
  'checkKeywords',
  'checkTextLimits',
  'listLibraryKeywords',
  'renameKeyword',
  'mergeKeywords',
  'deleteKeyword',
  'previewWrite',
  'writeMetadata',
  'syncState',
  'exportCsv',
  'pickSavePath',
  // analysis: quality, faces, colours, flags
  'previewAnalysisRun',
  'startAnalysisRun',
  'getAssetAnalysis',
  'qualityHistogram',
  'rejectBelow',
  'setFlag',
] as const satisfies readonly ApiMethod[];

type Missing = Exclude<ApiMethod, (typeof API_METHODS)[number]>;
// If this line errors, a method of the contract is not listed above.
export const allMethodsListed: [Missing] extends [never] ? true : Missing = true;

/** The single IPC channel for calls, and the one for events. */
export const INVOKE_CHANNEL = 'tagsmith:invoke';
export const EVENT_CHANNEL = 'tagsmith:event';
