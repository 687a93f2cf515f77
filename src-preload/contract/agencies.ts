// Stock agencies: their published rules as profiles, the check of photos against them.
// Types only; contract.ts re-exports every one.

/** The agencies Tagsmith has a profile for (issue 19's ids, a CLI contract). */
export type AgencyId = 'adobe' | 'shutterstock' | 'getty' | 'alamy' | 'pond5' | 'dreamstime' | '123rf' | 'depositphotos' | 'freepik';

export type UploadProtocol = 'ftp' | 'ftps' | 'sftp';

/** One line of `tagsmith agencies --json`. */
export interface AgencySummary {
  id: AgencyId;
  name: string;
  protocols: UploadProtocol[];
  /** Whether the agency documents a metadata CSV that Tagsmith can export. */
  csv: boolean;
}

/** A profile as the app shows it: the rules in words, with their sources and what could not be found. */
export interface AgencyProfileView extends AgencySummary {
  csvHeader: string[] | null;
  rules: string[];
  /** Rules the agency's published documentation did not give (Tagsmith does not invent them). */
  notFound: string[];
  sources: { url: string; what: string; checked: string }[];
  categories: { value: string; label: string }[];
  maxCategories: number;
  editorialCaption: string | null;
}

/** One photo against one agency's rules: ok, or what to fix. */
export interface AgencyVerdict {
  assetId: number;
  path: string;
  ok: boolean;
  problems: string[];
  /** The same problems with where each is fixed (the app's check shows an inline fix); absent from the CLI. */
  issues?: AgencyIssue[];
}

/** One problem of a verdict: its words, the field the user fixes it in, and the value one click would set. */
export interface AgencyIssue {
  text: string;
  field: 'title' | 'caption' | 'keywords' | 'category' | 'file';
  /** The field's value with the problem taken out (e.g. the title without its commas), when one edit fixes it. */
  fixed?: string;
  /** The one-click fix's words: "Remove commas". */
  fixLabel?: string;
  /** Too many keywords: the photo's keywords taken off to fix it (those past the agency's maximum in the photo's order). */
  remove?: string[];
}

/** A photo's agency fields (stored in the catalogue, editable for a selection). */
export interface StockFieldsView {
  editorial: boolean;
  releases: string[];
  /** Per agency, its categories in order (Adobe: a number as text; Shutterstock: names). */
  categories: Partial<Record<AgencyId, string[]>>;
  /** Where the photo's file was sent (issue 19's upload), newest first. */
  sent?: SentRecordView[];
}

/** "Sent to Adobe Stock on 2026-11-24": the last time the photo's file reached an agency's server. */
export interface SentRecordView {
  agency: AgencyId;
  name: string;
  /** epoch ms */
  sentAt: number;
  /** the address, e.g. sftp://host:22/dir/IMG_1.jpg (never a user name or password) */
  remote: string;
}

/** An agency's upload account as the app shows it: never the password. */
export interface AgencyAccountView {
  agency: AgencyId;
  configured: boolean;
  /** ftp://, ftps:// or sftp://HOST:PORT/DIR */
  url: string | null;
  user: string | null;
  /** 'env': TAGSMITH_UPLOAD_USER / _PASSWORD are set and used instead */
  source: 'env' | 'keychain' | 'none';
  /** SFTP host keys trusted for this agency (first use), per server */
  hostKeys: AgencyHostKeyView[];
}

/** An SFTP server's host key, trusted on the first connection to it (as OpenSSH's known_hosts). */
export interface AgencyHostKeyView {
  host: string;
  port: number;
  /** e.g. ssh-ed25519, ssh-rsa */
  keyType: string;
  /** OpenSSH's form: SHA256:… */
  fingerprint: string;
  /** epoch ms */
  firstSeen: number;
}

export interface UploadStartedView {
  /** the Activity batch of the new uploads (null when nothing new was queued) */
  batchId: string | null;
  url: string;
  queued: number;
  heldBack: { assetId: number; path: string; problems: string[] }[];
  /** sent before, unchanged, to the same place: not sent again */
  alreadySent: number;
}

export interface AgenciesApi {
  listAgencies(): Promise<AgencyProfileView[]>;
  /** Every asset against the agency's rules (reads the catalogue only). */
  checkForAgency(args: { ids: number[]; agency: AgencyId }): Promise<AgencyVerdict[]>;
  getStockFields(args: { id: number }): Promise<StockFieldsView>;
  /** One undoable edit over the selection; a field left out is kept. Categories replace that agency's only. */
  setStockFields(args: { ids: number[]; editorial?: boolean; releases?: string[]; categories?: { agency: AgencyId; values: string[] } }): Promise<void>;
  /** The agency's upload account (address and user; the password never leaves main). */
  agencyAccount(args: { agency: AgencyId }): Promise<AgencyAccountView>;
  /** Store address, user and password in the OS keychain; an empty password keeps the stored one. Resumes the agency's paused uploads. */
  setAgencyAccount(args: { agency: AgencyId; url: string; user: string; password: string }): Promise<AgencyAccountView>;
  removeAgencyAccount(args: { agency: AgencyId }): Promise<AgencyAccountView>;
  /** Forget the SFTP host key trusted for the agency's server: the next connection trusts the key it is shown. */
  forgetAgencyHostKey(args: { agency: AgencyId; host: string; port: number }): Promise<AgencyAccountView>;
  /** Check, then queue one upload per photo that passes (all with force); progress and cancel in Activity. */
  uploadToAgency(args: { ids: number[]; agency: AgencyId; force?: boolean }): Promise<UploadStartedView>;
}
