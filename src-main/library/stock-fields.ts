import { setStockColumn } from '../catalogue/asset-fields';
import type { Db } from './db';
import { prepared } from './db';

// What stock agencies ask of a photo beyond IPTC (issue 19): the editorial flag, release
// names, and a category per agency, in asset_stock (one row per asset, absent = defaults).
// Categories are stored as "agency:value" strings so that one list carries every agency's.

export interface StockFields {
  editorial: boolean;
  releases: string[];
  /** "agency:value", e.g. "adobe:11", "shutterstock:Nature". */
  categories: string[];
}

const parseList = (json: string): string[] => {
  const v = JSON.parse(json) as unknown;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};

export function readStockFields(db: Db, assetId: number): StockFields {
  const row = prepared(db, 'SELECT editorial, releases, categories FROM asset_stock WHERE asset_id = ?').get(assetId) as
    | { editorial: number; releases: string; categories: string }
    | undefined;
  if (!row) return { editorial: false, releases: [], categories: [] };
  return { editorial: row.editorial === 1, releases: parseList(row.releases), categories: parseList(row.categories) };
}

/** The categories of one agency, in their order. */
export function agencyCategories(fields: StockFields, agency: string): string[] {
  const prefix = `${agency}:`;
  return fields.categories.filter((c) => c.startsWith(prefix)).map((c) => c.slice(prefix.length));
}


export function writeStockField(db: Db, assetId: number, field: keyof StockFields, value: boolean | string[]): void {
  const stored = field === 'editorial' ? (value ? 1 : 0) : JSON.stringify(value);
  setStockColumn(db, assetId, field, stored);
}
