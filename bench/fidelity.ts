import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeMetadataReader, readMetadata } from '../src-main/metadata/reader';
import { buildCorpus, combinedReading, compareReadings, exiftoolReadings } from '../tests/fixtures/real-world';
import { check, log, median, now, round, type AreaResult } from './common';

// Metadata fidelity: on the real-world corpus (tests/fixtures/real-world.ts, one file per
// structure cameras, phones and tools leave: UTF-16 XMP, IPTC/XMP disagreeing with and
// without a digest, Latin-1 IPTC, TIFF IPTC, PNG iTXt, WebP, HEIC, DNG, XPKeywords,
// Lightroom hierarchies, both sidecar namings, maker-note dates, QuickTime zones, GPS in
// four hemispheres), the share of fields Tagsmith reads (as the scan reads them: from the
// file's bytes, with its sidecar) equal to exiftool's reading of the same field.

export async function benchFidelity(workDir: string): Promise<AreaResult> {
  const t0 = Date.now();
  const root = join(workDir, 'fidelity');
  log('fidelity', 'building the real-world corpus');
  const files = await buildCorpus(root);
  const abs = (rel: string): string => join(root, rel);
  const refs = exiftoolReadings(files.flatMap((f) => [abs(f.rel), ...(f.sidecar ? [abs(f.sidecar)] : [])]));
  let equal = 0;
  let total = 0;
  const mismatches: string[] = [];
  const readMs: number[] = [];
  try {
    for (const f of files) {
      const ref = combinedReading(refs.get(abs(f.rel))!, f.sidecar ? refs.get(abs(f.sidecar))! : null, f.isRaw === true);
      const t = now();
      const ours = await readMetadata(abs(f.rel), { format: f.format, buf: readFileSync(abs(f.rel)), sidecarPath: f.sidecar ? abs(f.sidecar) : null, isRaw: f.isRaw });
      readMs.push(now() - t);
      for (const c of compareReadings(ref, ours)) {
        total++;
        if (c.equal) equal++;
        else mismatches.push(`${f.structure}: ${c.field} exiftool ${JSON.stringify(c.exiftool)}, Tagsmith ${JSON.stringify(c.tagsmith)}`);
      }
    }
  } finally {
    await closeMetadataReader();
  }
  const pct = total ? round((100 * equal) / total, 1) : 0;
  return {
    area: 'fidelity',
    figures: [{
      area: 'fidelity', name: `metadata fields read equal to exiftool / fields exiftool reads (${files.length} real-world structures)`,
      value: pct, unit: `% (${equal}/${total})`, target: '100%', status: check(equal === total && total > 0),
      note: mismatches.length ? mismatches.slice(0, 10).join('; ') : `read median ${round(median(readMs), 1)} ms per file`,
    }],
    notes: [
      'Fields: capture date (sub-seconds and offset), make, model, lens, the seven exposure values, GPS, orientation, rating, colour label, keywords (every level, and the authoritative block leading in its order), caption, title, creator, copyright. exiftool\'s reading: `exiftool -j -G1 -a`, its MWG composites for the reconciled fields, sidecars combined by the rule in the README.',
      ...mismatches.map((m) => `Mismatch: ${m}`),
    ],
    detail: { equal, total, mismatches },
    seconds: (Date.now() - t0) / 1000,
  };
}
