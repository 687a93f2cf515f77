// Batch rename (issue 16): a preview of every new name, then the rename. Types only;
// contract.ts re-exports every one.

/** One file of a rename preview (a RAW+JPEG partner of a selected file is included). */
export interface RenamePreviewItem {
  assetId: number;
  /** Absolute paths, before and after. */
  from: string;
  to: string;
  /** False when the template gives the name the file already has. */
  changed: boolean;
  /** Why this file cannot be renamed (a collision, a missing date...), or null. */
  problem: string | null;
  /** What was adjusted to make a name legal, or null. */
  note: string | null;
  /** Sidecars (IMG_1.xmp and IMG_1.CR2.xmp) renamed with it: absolute paths. */
  sidecars: { from: string; to: string }[];
}

export interface RenamePreview {
  /** A template that cannot be used (an unknown token, an illegal character): the message, else null. */
  templateError: string | null;
  items: RenamePreviewItem[];
  /** Files with a problem: while any, nothing can be renamed. */
  problems: number;
  /** Files whose name would change. */
  changes: number;
}

export interface RenameRequest {
  assetIds: number[];
  template: string;
  /** The first {seq} number (default 1). */
  start?: number;
}

export interface RenameResult {
  /** Every file renamed: absolute paths. */
  renamed: { assetId: number; from: string; to: string }[];
  /** Files that could not be moved when the time came (the rest went on), with why. */
  failed: { assetId: number; path: string; reason: string }[];
}

export interface RenameApi {
  previewRename(req: RenameRequest): Promise<RenamePreview>;
  renameAssets(req: RenameRequest): Promise<RenameResult>;
}
