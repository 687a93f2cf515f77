import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExifTool } from 'exiftool-vendored';
import sharp from 'sharp';
import { BURST_EDITS, frame, writeBurst } from '../fixtures/bursts';

// The photos the similarity tests (similarity, similar-groups, per-group) make: generated
// bursts (tests/fixtures/bursts.ts), distinct scenes drawn with the same palette, and the
// capture times that decide what is a burst, written by the real exiftool.

/** A temp folder of the test file's own, by its real path (the CLI prints real paths). */
export function tempRoot(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** One distinct scene per seed (the bursts' palette and first edit), `name(seed)` in `dir`: pictures that belong to no group. */
export async function writeScenes(dir: string, seeds: readonly number[], name: (seed: number) => string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const out: string[] = [];
  for (const seed of seeds) {
    const p = join(dir, name(seed));
    await sharp(await frame(seed, BURST_EDITS[0])).toFile(p);
    out.push(p);
  }
  return out;
}

/** Sets each file's capture time (EXIF:DateTimeOriginal, 'YYYY:MM:DD hh:mm:ss') in place, with one exiftool. */
export async function setTakenAt(dates: Iterable<readonly [path: string, exifDate: string]>): Promise<void> {
  const et = new ExifTool({ maxProcs: 1 });
  try {
    for (const [p, t] of dates) await et.write(p, { 'EXIF:DateTimeOriginal': t } as never, { writeArgs: ['-overwrite_original'] });
  } finally {
    await et.end();
  }
}

export interface BurstShoot {
  burstA: string[];
  burstB: string[];
  alone: string[];
}

/**
 * The shoot of the grouping tests: burst A (4 frames from 09:00:00, scene `seeds.a`) and burst
 * B (3 frames from 12:00:00, scene `seeds.b`) as IMG_A_0n.jpg / IMG_B_0n.jpg, and two distinct
 * scenes IMG_S<seed>.jpg shot at 09:00:02, in the middle of burst A, that must still group
 * with nothing. All in `photos`, dated.
 */
export async function writeBurstShoot(photos: string, seeds: { a: number; b: number; alone: readonly [number, number] }): Promise<BurstShoot> {
  const burstA = (await writeBurst(photos, seeds.a, 'IMG_A', 4)).map((f) => f.path);
  const burstB = (await writeBurst(photos, seeds.b, 'IMG_B', 3)).map((f) => f.path);
  const alone = await writeScenes(photos, seeds.alone, (seed) => `IMG_S${seed}.jpg`);
  await setTakenAt([
    ...burstA.map((p, i) => [p, `2024:06:01 09:00:0${i}`] as const),
    ...burstB.map((p, i) => [p, `2024:06:01 12:00:0${i}`] as const),
    ...alone.map((p) => [p, '2024:06:01 09:00:02'] as const),
  ]);
  return { burstA, burstB, alone };
}
