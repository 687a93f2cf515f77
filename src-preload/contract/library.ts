// Library: assets and their search, folders and scanning, rights fields and presets, edits.
// Types only; contract.ts re-exports every one.

export type AssetKind = 'image' | 'video' | 'audio';

/** Lightroom's colour labels (keys 6-9 set red, yellow, green, blue; purple from the menu). */
export type ColorLabel = 'red' | 'yellow' | 'green' | 'blue' | 'purple';

/** 'quality' and 'ugcQuality' sort by the measured score; assets not measured come last in either direction. */
/** 'colorMatch': most of the colour of the `color` filter first (by share of the picture); without one, by date. */
export type SortKey = 'takenAt' | 'name' | 'addedAt' | 'size' | 'quality' | 'ugcQuality' | 'colorMatch' | 'custom';

export interface SearchQuery {
  /** Full text over file name, keywords, caption and title (prefix match per word). */
  text?: string;
  kinds?: AssetKind[];
  folderId?: number;
  /** Every one of these keywords must be present (case-insensitive). */
  keywords?: string[];
  /** None of these keywords may be present. */
  withoutKeywords?: string[];
  /** Only assets that have no keyword at all. */
  noKeywords?: boolean;
  /** Minimum star rating, 0..5. */
  minRating?: number;
  /** Inclusive bounds on the capture date, 'YYYY-MM-DD' (compared as local wall-clock dates). */
  takenFrom?: string;
  takenTo?: string;
  /** Camera model or make, exact match as shown in the facets. */
  camera?: string;
  /** Lens name contains this text (case-insensitive). */
  lens?: string;
  /** Inclusive ranges on the exposure; an end left out is open. Photos that do not record the value never match. */
  iso?: NumberRange;
  /** Focal length in mm (as recorded, not the 35 mm equivalent). */
  focalLength?: NumberRange;
  /** F-number. */
  aperture?: NumberRange;
  /** Only assets that have at least one exact duplicate (same content hash). */
  duplicatesOnly?: boolean;
  /** Only assets with a recorded error (corrupt, unreadable, unsupported). */
  errorsOnly?: boolean;
  /** Only photos in a group of one scene (two or more frames): any such group, or bursts only. */
  similarGroups?: 'any' | 'burst';
  /**
   * Fold each similar group into one picture, as RAW+JPEG stacks fold: the user's pick in the
   * group, else its suggested best frame (when it matches the query too). The groups listed
   * in expandedGroups (by group id) show every member.
   */
  foldGroups?: boolean;
  expandedGroups?: number[];
  // -- analysis filters (quality, faces, colours, flags); each needs the measurement made --
  /** Stock quality score bounds, 0..1, inclusive. */
  minQuality?: number;
  maxQuality?: number;
  /** UGC quality classes 1..5 (any of them). */
  ugcClasses?: number[];
  /** true: at least one face found; false: faces looked for and none found. */
  hasFaces?: boolean;
  minFaces?: number;
  maxFaces?: number;
  /** At least one face estimated under 18. */
  child?: boolean;
  /** Some face's estimated age lies in [ageMin, ageMax]. */
  ageMin?: number;
  ageMax?: number;
  /** A model release is likely needed (faces present); false: faces looked for, none found. */
  releaseNeeded?: boolean;
  /** Lightroom-style flag. */
  flag?: 'pick' | 'reject' | 'unflagged';
  /** Colour label; 'none' = no label at all (a label other software named otherwise matches neither). */
  label?: ColorLabel | 'none';
  /** Photos whose file was sent to this stock agency (an agency id such as 'adobe'), or never sent to it. */
  sentTo?: string;
  notSentTo?: string;
  /** Colour by perceptual distance (CIE76 in L*a*b*) to the measured palette. */
  color?: ColorQuery;
  /** In this collection: a manual one's members, a smart one's live matches, a set's collections' photos. */
  collectionId?: number;
  /** 'custom': a manual collection's own order (collectionId); otherwise the timeline. */
  sort?: SortKey;
  order?: 'asc' | 'desc';
}

/** An inclusive range; either end may be left out (open). */
export interface NumberRange {
  min?: number;
  max?: number;
}

/** Exposure as exiftool prints it (the units photographers read). */
export interface Exposure {
  /** F-number, e.g. 2.8. */
  aperture: number | null;
  /** '1/250' below a quarter second, else seconds ('2.5', '30'). */
  shutter: string | null;
  iso: number | null;
  /** mm */
  focalLength: number | null;
  /** 35 mm equivalent, mm */
  focalLength35: number | null;
  /** EV */
  exposureBias: number | null;
  /** Whether the flash fired. */
  flash: boolean | null;
}

/** The `color` filter of a search (the palettes come from colour analysis). */
export interface ColorQuery {
  /** '#RRGGBB' */
  hex: string;
  /** CIE76 ΔE in L*a*b*; default 25 (about "clearly the same hue family"). */
  maxDistance?: number;
  /** Share of the picture (0..1) the matching colours must cover together; default 0.25. */
  minShare?: number;
}

export interface Page {
  offset: number;
  limit: number;
}

/** What a grid cell needs. */
export interface AssetSummary {
  id: number;
  name: string;
  kind: AssetKind;
  format: string;
  width: number | null;
  height: number | null;
  durationS: number | null;
  takenAt: string | null;
  rating: number;
  /** The colour label, when it is one of Lightroom's five. */
  label: ColorLabel | null;
  /** Media token for the grid thumbnail; turn into a URL with the renderer's mediaUrl(). Null when no thumbnail could be made. */
  thumb: string | null;
  /**
   * Which picture `thumb` is: 'full' (made from the picture), 'preview' (the preview embedded
   * in the file, shown until the full thumbnail is made), null when there is no thumbnail yet.
   */
  thumbState: 'full' | 'preview' | null;
  /** Number of other files in the same RAW+JPEG stack (0 when not stacked). */
  stackCount: number;
  /** The similar group (bursts and near-duplicates) the photo is in, and how many frames it has; null when in none. */
  similarGroup: { id: number; size: number; kind: 'burst' | 'similar' } | null;
  hasError: boolean;
  folderOnline: boolean;
  keywordCount: number;
}

/** A grid cell's state beyond its summary row. */
export interface CellState {
  id: number;
  /** 'unsaved': the library holds keywords, captions or other fields the file does not have yet; 'failed': the last write to the file failed. */
  write: 'unsaved' | 'failed' | null;
  /** AI keyword and caption suggestions waiting for review. */
  suggestions: number;
  /** The agencies the file was sent to, the latest first. */
  sentTo: string[];
}

export interface AssetError {
  stage: string;
  reason: string;
  at: number;
}

/**
 * The rest of IPTC Core / Extension a metadata template may hold (issue 16): the creator's
 * contact info and job title, usage terms, the rights URL, instructions, source, and the
 * location created and the location shown (IPTC Extension structures).
 */
export interface ExtendedRightsFields {
  creatorJobTitle?: string | null;
  creatorAddress?: string | null;
  creatorCity?: string | null;
  creatorRegion?: string | null;
  creatorPostalCode?: string | null;
  creatorCountry?: string | null;
  creatorPhone?: string | null;
  creatorEmail?: string | null;
  creatorUrl?: string | null;
  usageTerms?: string | null;
  rightsUrl?: string | null;
  instructions?: string | null;
  source?: string | null;
  createdSublocation?: string | null;
  createdCity?: string | null;
  createdState?: string | null;
  createdCountry?: string | null;
  createdCountryCode?: string | null;
  shownSublocation?: string | null;
  shownCity?: string | null;
  shownState?: string | null;
  shownCountry?: string | null;
  shownCountryCode?: string | null;
}

/** Stock and rights fields (IPTC Core / Extension, XMP), beside keywords, caption and title. */
export interface RightsFields extends ExtendedRightsFields {
  headline?: string | null;
  creator?: string | null;
  copyright?: string | null;
  credit?: string | null;
  city?: string | null;
  country?: string | null;
}

/** A metadata template (Lightroom's and digiKam's "IPTC template"): fields to set and keywords to add. */
export interface MetadataPreset {
  id: number;
  name: string;
  fields: RightsFields;
  /** Added to each photo's keywords when the template is applied (none removed). */
  keywords: string[];
  updatedAt: number;
}

/**
 * A file whose IPTC and XMP blocks disagreed when it was last read: which fields, which block
 * was taken and why (the IPTC digest matched, differed from the IPTC block, or was absent;
 * the Metadata Working Group's rule). Keywords: the union was taken, the named block first.
 */
export interface BlockDisagreement {
  fields: string[];
  took: 'xmp' | 'iptc';
  digest: 'matches' | 'differs' | 'absent';
}

export interface AssetDetail extends AssetSummary {
  path: string;
  folderId: number;
  size: number;
  mtimeMs: number;
  contentHash: string | null;
  orientation: number | null;
  cameraMake: string | null;
  cameraModel: string | null;
  lens: string | null;
  /** How the photo was exposed; always an object, each member null where the file does not record it. */
  exposure: Exposure;
  gps: { lat: number; lon: number } | null;
  /** The label text as stored (as read from the file, or Lightroom's name when set here). */
  colorLabel: string | null;
  videoCodec: string | null;
  audioCodec: string | null;
  keywords: string[];
  caption: string | null;
  title: string | null;
  rights: Required<RightsFields>;
  /** Null when the file's IPTC and XMP agreed (or it has only one of them). */
  blockDisagreement: BlockDisagreement | null;
  addedAt: number;
  /** Media token for a large preview (JPEG), or the original when the browser can show it. */
  preview: string | null;
  /** Media token of the original file (for audio/video playback). */
  original: string | null;
  errors: AssetError[];
  /** Other members of the RAW+JPEG stack. */
  stack: { id: number; name: string; format: string }[];
  /** Other assets with the same content. */
  duplicates: { id: number; path: string }[];
}

/** What a 100 % view shows: every pixel of the file, or the reason it cannot. */
export interface FullImage {
  /** Media token; null when no full-size picture can be shown (see `note`). */
  token: string | null;
  /** The original itself, a full-size rendering (HEIC, TIFF), or a RAW's embedded preview. */
  source: 'original' | 'rendered' | 'embedded-preview' | null;
  note: string | null;
}

/** The loupe's histogram: counts per level (0..255) of the picture the loupe shows. */
export interface Histogram {
  /** Null when there is none to show (a video, no preview yet); `note` says why. */
  bins: {
    red: number[];
    green: number[];
    blue: number[];
    luminance: number[];
    /** Pixels counted (the picture is shrunk first, so fewer than the file's). */
    pixels: number;
    /** Share of pixels black in all three channels (0..1). */
    shadowsClipped: number;
    /** Share of pixels at full level in any channel (0..1). */
    highlightsClipped: number;
  } | null;
  note: string | null;
}

export interface SimilarGroupInfo {
  kind: 'burst' | 'similar';
  /** Asset ids in capture order. */
  members: number[];
  /** The suggested best frame: the highest quality score when measured, else the sharpest. */
  best: number;
}

export interface SearchResult {
  total: number;
  offset: number;
  items: AssetSummary[];
}

export interface FolderInfo {
  id: number;
  path: string;
  online: boolean;
  assetCount: number;
  errorCount: number;
  addedAt: number;
  lastScanAt: number | null;
  scanning: boolean;
}

export interface KeywordCount {
  name: string;
  count: number;
}

export interface Facets {
  cameras: { name: string; count: number }[];
  kinds: { kind: AssetKind; count: number }[];
  total: number;
}

export interface ScanSummary {
  added: number;
  updated: number;
  removed: number;
  moved: number;
  errors: { path: string; reason: string }[];
  cancelled: boolean;
}

export interface ScanProgress {
  folderId: number;
  folderPath: string;
  /**
   * 'thumbnails': every file is in the grid (with its embedded preview or a placeholder), the
   * full thumbnails are still being made (`thumbnails`).
   */
  phase: 'walking' | 'indexing' | 'thumbnails' | 'done' | 'cancelled';
  found: number;
  done: number;
  errors: number;
  filesPerSec: number;
  /** The full thumbnails this scan owes: made so far, and in all (from the thumbnails phase on). */
  thumbnails?: { done: number; total: number };
}

export interface AppInfo {
  version: string;
  dataDir: string;
  /** True when running inside Electron (native dialogs available). */
  native: boolean;
}

export interface LibraryApi {
  appInfo(): Promise<AppInfo>;

  listFolders(): Promise<FolderInfo[]>;
  /** Add a folder to the library and start scanning it (returns once added). */
  addFolder(args: { path: string }): Promise<FolderInfo>;
  /** Forget a folder and its assets' catalogue entries; files are never touched. */
  removeFolder(args: { id: number }): Promise<void>;
  /** Point a (moved or renamed) folder at its new location, keeping everything. */
  relinkFolder(args: { id: number; path: string }): Promise<FolderInfo>;
  rescan(args: { folderId?: number }): Promise<void>;
  cancelScan(): Promise<void>;
  /** Ask the OS for a folder (native dialog); null when cancelled or unavailable. */
  pickFolder(): Promise<string | null>;

  search(args: { query: SearchQuery; page: Page }): Promise<SearchResult>;
  /**
   * Every id matching a query, in order (for "select all matching"): typed, so a million ids
   * cross from the main process as one copy instead of a million serialised numbers.
   */
  searchIds(args: { query: SearchQuery }): Promise<Int32Array>;
  getAsset(args: { id: number }): Promise<AssetDetail>;
  /** The picture at its own pixel size, for 100 % zoom (made on first ask for HEIC and TIFF). */
  getFullImage(args: { id: number }): Promise<FullImage>;
  /** Red, green, blue and luminance levels of the photo as the loupe shows it (its preview). */
  getHistogram(args: { id: number }): Promise<Histogram>;
  /**
   * Groups of one scene (bursts and similar frames, two or more each) among these assets, or
   * the whole library, each with its suggested best frame. Missing fingerprints are computed first.
   */
  similarGroups(args: { ids?: number[] }): Promise<SimilarGroupInfo[]>;
  /**
   * The assets whose cells are on screen, nearest the middle first (sent on scroll, coalesced):
   * their full thumbnails are made before any other's.
   */
  setVisibleAssets(args: { ids: number[] }): Promise<void>;
  /** What the grid's cells show beside the picture, for the cells on screen (at most 2,000 ids). */
  cellStates(args: { ids: number[] }): Promise<CellState[]>;
  facets(): Promise<Facets>;

  /** Add and/or remove keywords on several assets; order of existing keywords is kept, new ones are appended. */
  editKeywords(args: { ids: number[]; add?: string[]; remove?: string[] }): Promise<void>;
  /** Take different keywords off each asset (Check & export's "too many keywords" for many photos), as one undoable edit. */
  removeKeywordsEach(args: { removals: { id: number; remove: string[] }[] }): Promise<void>;
  /** Replace one asset's keyword list, in this order. */
  setKeywords(args: { id: number; keywords: string[] }): Promise<void>;
  setCaption(args: { ids: number[]; caption: string | null }): Promise<void>;
  setTitle(args: { ids: number[]; title: string | null }): Promise<void>;
  setRating(args: { ids: number[]; rating: number }): Promise<void>;
  /** Set (or with null clear) the colour label of several assets as one undoable edit; written into files as XMP Label. */
  setLabel(args: { ids: number[]; label: ColorLabel | null }): Promise<void>;
  /** Headline, creator, copyright, credit, city, country on several assets (one undoable edit; null clears, absent keeps). */
  setRightsFields(args: { ids: number[]; fields: RightsFields }): Promise<void>;
  listPresets(): Promise<MetadataPreset[]>;
  /** Create or replace (by name) a named preset of rights fields. */
  savePreset(args: { name: string; fields: RightsFields; keywords?: string[] }): Promise<MetadataPreset>;
  deletePreset(args: { id: number }): Promise<void>;
  /** Apply a preset to a selection in one step (undoable). */
  applyPreset(args: { id: number; ids: number[] }): Promise<void>;
  /** Undo the most recent edit (any of the above); returns a description, or null when nothing to undo. */
  undo(): Promise<string | null>;
  /** Library keywords with usage counts, most used first; optional prefix for autocomplete; with `ids`, counted among those photos only. */
  listKeywords(args: { prefix?: string; limit?: number; ids?: number[] }): Promise<KeywordCount[]>;
}

export interface LibraryEvents {
  scanProgress: ScanProgress;
  /** Something in the catalogue changed; views re-query. */
  libraryChanged: { reason: 'scan' | 'edit' | 'folders' | 'watch' | 'groups'; assetIds?: number[] };
  /** These assets' grid pictures changed (a full thumbnail replaced the embedded preview or the placeholder). */
  thumbnailsChanged: { assetIds: number[] };
  foldersChanged: Record<string, never>;
}
