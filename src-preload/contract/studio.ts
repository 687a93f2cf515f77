// Settings › Studio and the top bar: this library as a member of a studio library.

export interface StudioState {
  /** whether this library is a member of a studio */
  member: boolean;
  server: string | null;
  studio: { id: string; name: string } | null;
  user: string | null;
  role: 'admin' | 'editor' | 'viewer' | null;
  /** the server's certificate fingerprint this library trusts (SHA-256) */
  fingerprint: string | null;
  /** whether the last exchange with the server went through */
  connected: boolean;
  /** changes of this library the studio does not have yet */
  pendingChanges: number;
  /** ISO 8601 */
  lastSyncAt: string | null;
  /** why the last sync did not go through, for the user */
  error: string | null;
  /** the studio's shared disks and where each is on this computer */
  volumes: StudioVolume[];
  /** what this computer holds of the studio (a laptop's part); null: all of it */
  subset: StudioSubsetState | null;
}

/** A laptop's part of the studio: the folders (as they are on this computer) and the collections (by name) whose photos it holds. */
export interface StudioSubsetState {
  folders: string[];
  collections: string[];
}

/** A shared disk (or a folder on one) of the studio, as this computer sees it. */
export interface StudioVolume {
  id: string;
  name: string;
  /** where it is on this computer; null: not mapped here (its photos are offline here) */
  mount: string | null;
  /** mapped and reachable now */
  online: boolean;
  /** studio changes of its photos kept until it is mapped here */
  waiting: number;
}

/** What a studio server shows before joining: compare the fingerprint with what `tagsmith serve` printed. */
export interface StudioProbe {
  url: string;
  studioName: string;
  fingerprint: string;
  /** photos of this library whose keywords, captions, ratings, labels or rights fields joining will share */
  sharedPhotos: number;
}

/** One line of a photo's history (the inspector's History section). */
export interface AssetHistoryLine {
  /** when (ISO 8601); null: what a library held when it joined the studio */
  at: string | null;
  /** 'you': made in this library, on this computer; 'member': another member of the studio */
  by: 'you' | 'member';
  /** the studio user who made it, as the server named them (null for this computer's own changes) */
  user: string | null;
  /** what changed, for a photographer: "Added keyword “beach”", "Rating 3 → 5" */
  what: string;
}

export interface StudioApi {
  studioStatus(): Promise<StudioState>;
  /** First contact: the server's name and certificate fingerprint; nothing secret is sent. */
  studioProbe(args: { url: string }): Promise<StudioProbe>;
  /** Sign in with the fingerprint the user confirmed; the password goes to the OS keychain. */
  studioJoin(args: { url: string; user: string; password: string; fingerprint: string }): Promise<StudioState>;
  /** Stop being a member; the library keeps what it holds. */
  studioLeave(): Promise<StudioState>;
  /** Send and receive now (the app also syncs by itself). */
  studioSyncNow(): Promise<StudioState>;
  /** A studio volume (by id) is at `path` on this computer: its photos are read from there, and changes that waited for it apply. */
  studioMapVolume(args: { volume: string; path: string }): Promise<StudioState>;
  /**
   * Hold only these folders and collections of the studio on this computer (null: all of it), as
   * `tagsmith studio subset` does: when it grows, the photos now included are copied here with
   * their edits; when it shrinks, the photos already here stay and their changes stop arriving.
   */
  studioSetSubset(args: { subset: StudioSubsetState | null }): Promise<StudioState>;
  /** A photo's history, newest first: who changed what, and when (this computer's changes and the studio's). */
  assetHistory(args: { id: number }): Promise<AssetHistoryLine[]>;
}

export interface StudioEvents {
  /** The studio state changed (connected, pending count, last sync, an error). */
  studioChanged: StudioState;
}
