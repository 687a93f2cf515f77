import { cleanKeywordList } from '../library/keywords';

// One file holds the same facts in up to three blocks: IPTC IIM (old tools, newsrooms), XMP
// (everything since ~2005) and EXIF (cameras, Windows Explorer). When they disagree, the
// Metadata Working Group's guidance (MWG 2.0, as exiftool's MWG module implements it) says
// which block to believe: the IPTC digest Photoshop-era tools store beside the IPTC block is
// the MD5 of that block when the XMP was last synchronised with it. Matching (or no digest at
// all): XMP is authoritative. Different: a tool that ignores XMP edited the IPTC afterwards,
// so IPTC is. Keywords are never dropped from either block: the union, in the authoritative
// block's order. Both readers (exifr and exiftool) and the writer's view of a file go through
// here, so what the catalogue shows and what a write compares against are the same.

export type BlockTextField = 'caption' | 'title' | 'headline' | 'creator' | 'copyright' | 'credit' | 'city' | 'country';
export const BLOCK_TEXT_FIELDS: readonly BlockTextField[] = ['caption', 'title', 'headline', 'creator', 'copyright', 'credit', 'city', 'country'];

/** IPTC IIM maximum lengths (bytes): a value cut at its limit is the start of the XMP value, not a disagreement. */
const IPTC_MAX_BYTES: Readonly<Record<BlockTextField, number>> = {
  caption: 2000, title: 64, headline: 256, creator: 32, copyright: 128, credit: 32, city: 32, country: 64,
};

export interface MetadataBlocks {
  iptc: { keywords: string[]; text: Partial<Record<BlockTextField, string>> };
  xmp: { subject: string[]; hierarchical: string[]; tagsList: string[]; text: Partial<Record<BlockTextField, string>> };
  /** EXIF IFD0: ImageDescription, Artist, Copyright, and Windows' XPKeywords. */
  exif: { text: Partial<Record<'caption' | 'creator' | 'copyright', string>>; xpKeywords: string[] };
  /** Photoshop:IPTCDigest as stored, and the MD5 of the IPTC block as it is now (undefined: none). */
  storedDigest?: string;
  currentDigest?: string;
}

export const emptyBlocks = (): MetadataBlocks => ({
  iptc: { keywords: [], text: {} },
  xmp: { subject: [], hierarchical: [], tagsList: [], text: {} },
  exif: { text: {}, xpKeywords: [] },
});

export type Authority = 'xmp' | 'iptc';

/** What a reader tells the user when a file's IPTC and XMP blocks disagreed. */
export interface BlockDisagreement {
  /** Fields whose IPTC and XMP values differed ('keywords' when the lists differ as sets). */
  fields: string[];
  /** The block whose values were taken (keywords: whose order leads the union). */
  took: Authority;
  /** Why: the stored IPTC digest matched the IPTC block, differed from it, or was absent. */
  digest: 'matches' | 'differs' | 'absent';
}

export interface Reconciled {
  keywords: string[];
  text: Record<BlockTextField, string | null>;
  disagreement: BlockDisagreement | null;
}

const clean = (s: string | undefined): string | undefined => {
  const t = s?.normalize('NFC').trim();
  return t ? t : undefined;
};

const hasIptc = (b: MetadataBlocks): boolean =>
  b.currentDigest !== undefined || b.iptc.keywords.length > 0 || Object.values(b.iptc.text).some((v) => clean(v) !== undefined);

/** MWG: XMP unless a stored digest says the IPTC block changed after the XMP was synchronised. */
export function authorityOf(b: MetadataBlocks): { took: Authority; digest: BlockDisagreement['digest'] } {
  if (b.storedDigest === undefined) return { took: 'xmp', digest: 'absent' };
  if (b.currentDigest === undefined || b.storedDigest.toLowerCase() === b.currentDigest.toLowerCase()) return { took: 'xmp', digest: 'matches' };
  return { took: 'iptc', digest: 'differs' };
}

/** An IPTC value cut at its byte limit that starts the XMP value is the same value (exiftool's RecoverTruncatedIPTC). */
function truncatedFrom(iptc: string, xmp: string, field: BlockTextField): boolean {
  return xmp.length > iptc.length && xmp.startsWith(iptc) && Buffer.byteLength(iptc, 'utf8') >= IPTC_MAX_BYTES[field] - 3;
}

const keyOf = (k: string): string => k.normalize('NFC').trim().toLocaleLowerCase();

/** lr:hierarchicalSubject is 'A|B'; digiKam's TagsList is 'A/B'. Both become 'A|B'. */
const fromDigikam = (s: string): string => s.split('/').map((p) => p.trim()).filter(Boolean).join('|');

/**
 * Union of every keyword field, nothing silently dropped: the authoritative block's flat
 * keywords first, then the other block's extras, then hierarchies (Lightroom, digiKam) and
 * Windows' XPKeywords. A flat keyword that only repeats a component of a hierarchy in the same
 * set (Lightroom writes both 'Berlin' and 'Places|Europe|Berlin') is folded into that hierarchy.
 */
export function keywordUnion(lists: readonly (readonly string[])[]): string[] {
  const all = lists.flat();
  const list = cleanKeywordList(all.map((k) => k.split('|').map((p) => p.trim()).filter(Boolean).join('|')));
  const components = new Set<string>();
  for (const k of list) if (k.includes('|')) for (const part of k.split('|')) components.add(part.toLocaleLowerCase());
  return list.filter((k) => k.includes('|') || !components.has(k.toLocaleLowerCase()));
}

/** The flat keyword lists of one file in reading order (authoritative block first). */
export function orderedKeywordLists(b: MetadataBlocks): string[][] {
  const { took } = authorityOf(b);
  const [first, second] = took === 'xmp' ? [b.xmp.subject, b.iptc.keywords] : [b.iptc.keywords, b.xmp.subject];
  return [first, second, b.xmp.hierarchical, b.xmp.tagsList.map(fromDigikam), b.exif.xpKeywords];
}

export function reconcileBlocks(b: MetadataBlocks): Reconciled {
  const authority = authorityOf(b);
  const both = hasIptc(b);
  const disagreed: string[] = [];
  const text = {} as Record<BlockTextField, string | null>;
  for (const f of BLOCK_TEXT_FIELDS) {
    const iptc = clean(b.iptc.text[f]);
    const xmp = clean(b.xmp.text[f]);
    const exif = f === 'caption' || f === 'creator' || f === 'copyright' ? clean(b.exif.text[f]) : undefined;
    let value: string | undefined;
    if (iptc !== undefined && xmp !== undefined && iptc !== xmp) {
      if (truncatedFrom(iptc, xmp, f)) {
        value = xmp;
      } else {
        disagreed.push(f);
        value = authority.took === 'xmp' ? xmp : iptc;
      }
    } else {
      value = xmp ?? iptc;
    }
    // MWG (exiftool's MWG:Description, MWG:Creator, MWG:Copyright): a non-blank EXIF value
    // comes first, then XMP or IPTC as the digest says.
    text[f] = exif ?? value ?? null;
  }
  if (both && b.iptc.keywords.length > 0 && b.xmp.subject.length > 0) {
    const x = new Set(b.xmp.subject.map(keyOf));
    const i = new Set(b.iptc.keywords.map(keyOf));
    if (x.size !== i.size || [...x].some((k) => !i.has(k))) disagreed.unshift('keywords');
  }
  return {
    keywords: keywordUnion(orderedKeywordLists(b)),
    text,
    disagreement: disagreed.length > 0 ? { fields: disagreed, took: authority.took, digest: authority.digest } : null,
  };
}
