// Writing metadata into files (IPTC/XMP, sidecars) and agency CSV export.
// Types only; contract.ts re-exports every one.

import type { AgencyId, AgencyVerdict } from './agencies';

export type SyncStatus = 'in_sync' | 'unsaved' | 'written' | 'failed' | 'unknown';

export interface FieldChangeView {
  assetId: number;
  /** The file (or sidecar) that would change. */
  path: string;
  field: string;
  fileValue: unknown;
  libraryValue: unknown;
}

export interface WritePreview {
  changes: FieldChangeView[];
  /** Assets whose file could not be read (the write would fail the same way). */
  problems: { assetId: number; path: string | null; reason: string }[];
}

export interface WriteSummary {
  assetId: number;
  /** queued/cancelled: the batch was paused or cancelled before this file's turn (see Activity). */
  status: 'written' | 'in_sync' | 'failed' | 'queued' | 'cancelled';
  changedFields: string[];
  /** IPTC values that had to be shortened. */
  warnings: string[];
  error: string | null;
}

export interface SyncStateView {
  assetId: number;
  status: SyncStatus;
  error: string | null;
  unsavedFields: string[];
  conflicts: { field: string; fileValue: unknown; libraryValue: unknown }[];
  writtenAt: number | null;
}

export interface CsvExportResult {
  csv: string;
  rows: number;
  /** Every failing photo's problems, one line each (included or not). */
  warnings: string[];
  /** The check's verdict per photo, and whether its row is in the CSV. */
  verdicts: (AgencyVerdict & { included: boolean })[];
}

export interface MetadataApi {
  /** Per field, what writing these assets into their files would change. Reads only. */
  previewWrite(args: { ids: number[] }): Promise<WritePreview>;
  /** Write keywords, caption, title and rating into the files (safely, minimally, verified). */
  writeMetadata(args: { ids: number[] }): Promise<WriteSummary[]>;
  syncState(args: { id: number }): Promise<SyncStateView>;
  /**
   * A stock agency CSV for these assets, written to `path` (a save dialog's answer) or returned
   * as text. Photos failing the agency check are held back unless `force` (the user overrode).
   */
  exportCsv(args: { ids: number[]; agency: AgencyId; path?: string; force?: boolean }): Promise<CsvExportResult>;
  /** Ask the OS where to save a file (native dialog); null when cancelled or unavailable. */
  pickSavePath(args: { defaultName: string }): Promise<string | null>;
}
