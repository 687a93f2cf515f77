import type { AgencyId, AgencyProfileView, AgencySummary } from '../../../src-preload/contract';
import { profile as adobe } from './adobe';
import { profile as shutterstock } from './shutterstock';
import { profile as getty } from './getty';
import { profile as alamy } from './alamy';
import { profile as pond5 } from './pond5';
import { profile as dreamstime } from './dreamstime';
import { profile as rf123 } from './123rf';
import { profile as depositphotos } from './depositphotos';
import { profile as freepik } from './freepik';
import type { AgencyProfile } from './profile';
import { describeRules } from './check';

// The agency profiles, one file each, in the order the CLI and the app list them.

export type { AgencyProfile, AgencyRow } from './profile';
export { checkAgainst, checkIssues, agencyRow, describeRules, type CheckInput } from './check';
export type { AgencyId } from './profile';

export const AGENCY_PROFILES: readonly AgencyProfile[] = [adobe, shutterstock, getty, alamy, pond5, dreamstime, rf123, depositphotos, freepik];

export const AGENCY_IDS: readonly AgencyId[] = AGENCY_PROFILES.map((p) => p.id);

export function isAgencyId(s: string): s is AgencyId {
  return (AGENCY_IDS as readonly string[]).includes(s);
}

export function agencyProfile(id: AgencyId): AgencyProfile {
  const p = AGENCY_PROFILES.find((x) => x.id === id);
  if (!p) throw new Error(`No agency profile “${id}”.`);
  return p;
}

/** `tagsmith agencies --json`: `[{id, name, protocols, csv}]`. */
export function agencySummary(p: AgencyProfile): AgencySummary {
  return { id: p.id, name: p.name, protocols: [...p.upload.protocols], csv: p.csv !== null };
}

export function agencyView(p: AgencyProfile): AgencyProfileView {
  return {
    ...agencySummary(p),
    csvHeader: p.csv ? [...p.csv.header] : null,
    rules: describeRules(p),
    notFound: [...p.notFound],
    sources: p.sources.map((s) => ({ ...s })),
    categories: p.categories ? p.categories.list.map((c) => ({ ...c })) : [],
    maxCategories: p.categories?.max ?? 0,
    editorialCaption: p.editorial?.format ?? null,
  };
}
