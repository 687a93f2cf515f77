// Writing the library's keywords, captions, titles, ratings and rights fields into files, and
// exporting them for stock agencies. See writer.ts for the entry point.
export { truncateUtf8 } from './fields';
export { FIELD_NAMES, type FieldName, type FileFields, type ManagedFields } from './managed-fields';
export { MetadataWriteError, removeStaleTemps, writeFileMetadata, writeAssetMetadata, type FileWriteResult, type WriteResult, type WriteAssetOptions } from './writer';
export { previewWrite, type FieldChange, type PreviewResult } from './preview';
export { threeWayMerge, mergeKeywords, type MergeResult, type FieldConflict } from './field-merge';
export { getSyncState, recordFileRead, getFileSnapshot, libraryFields, type AssetSyncState, type SyncStatus } from './file-state';
export { exportCsv, csvField, csvText, type CsvRow } from './csv';
export { targetsFor, type Target } from './targets';
