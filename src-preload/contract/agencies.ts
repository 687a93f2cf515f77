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
}

/** A photo's agency fields (stored in the catalogue, editable for a selection). */
export interface StockFieldsView {
  editorial: boolean;
  releases: string[];
  /** Per agency, its categories in order (Adobe: a number as text; Shutterstock: names). */
  categories: Partial<Record<AgencyId, string[]>>;
}

export interface AgenciesApi {
  listAgencies(): Promise<AgencyProfileView[]>;
  /** Every asset against the agency's rules (reads the catalogue only). */
  checkForAgency(args: { ids: number[]; agency: AgencyId }): Promise<AgencyVerdict[]>;
  getStockFields(args: { id: number }): Promise<StockFieldsView>;
  /** One undoable edit over the selection; a field left out is kept. Categories replace that agency's only. */
  setStockFields(args: { ids: number[]; editorial?: boolean; releases?: string[]; categories?: { agency: AgencyId; values: string[] } }): Promise<void>;
}
