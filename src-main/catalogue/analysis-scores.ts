import { recordOperations } from './change-log';
import { stmt, type Db } from './statements';

// What an analysis run measured of a photo, through the door: its quality score, its UGC score
// and class, the faces found, the colours. The latest measurement of each kind replaces the one
// before, with the run, the parameters and the time it was made; each is recorded in the change
// log on its asset (analysis.quality | analysis.ugc | analysis.faces | analysis.colors), as a
// keyword or caption run's suggestions are (suggestions.ts). The log holds what a photographer
// reads in the history (the score, how many faces, which colours), not the faces' boxes or ages.
// Called inside the caller's transaction. The values come checked and scaled (analysis/store.ts).

/** Which run measured it (null: taken from a keyword run's palette), with what parameters, when. */
export interface Measured {
  assetId: number;
  runId: number | null;
  params: object;
  at: number;
}

export function setQualityScore(db: Db, m: Measured, score: number): void {
  stmt(db, 'INSERT OR REPLACE INTO asset_quality (asset_id, score, run_id, params, measured_at) VALUES (?, ?, ?, ?, ?)').run(m.assetId, score, m.runId, JSON.stringify(m.params), m.at);
  recordOperations(db, null, [{ op: 'analysis.quality', assetId: m.assetId, field: 'quality', value: { run: m.runId, score } }]);
}

export function setUgcScore(db: Db, m: Measured, score: number, cls: number): void {
  stmt(db, 'INSERT OR REPLACE INTO asset_ugc_quality (asset_id, score, class, run_id, params, measured_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    m.assetId,
    score,
    cls,
    m.runId,
    JSON.stringify(m.params),
    m.at,
  );
  recordOperations(db, null, [{ op: 'analysis.ugc', assetId: m.assetId, field: 'ugc_quality', value: { run: m.runId, score, class: cls } }]);
}

/** One face as stored: its box as fractions of the displayed picture. */
export interface FaceRow {
  age: number;
  score: number;
  class: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The faces found in a photo (replacing those found before), with the size of the picture they were found in. */
export function setFaces(db: Db, m: Measured, faces: readonly FaceRow[], derivative: { width: number | null; height: number | null }): void {
  stmt(db, 'DELETE FROM asset_faces WHERE asset_id = ?').run(m.assetId);
  const add = stmt(db, 'INSERT INTO asset_faces (asset_id, position, age, score, class, x0, y0, x1, y1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  faces.forEach((f, i) => add.run(m.assetId, i, f.age, f.score, f.class, f.x0, f.y0, f.x1, f.y1));
  const ages = faces.map((f) => f.age);
  stmt(
    db,
    `INSERT OR REPLACE INTO asset_face_scans (asset_id, face_count, min_age, max_age, derivative_width, derivative_height, run_id, params, measured_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(m.assetId, faces.length, ages.length ? Math.min(...ages) : null, ages.length ? Math.max(...ages) : null, derivative.width, derivative.height, m.runId, JSON.stringify(m.params), m.at);
  recordOperations(db, null, [{ op: 'analysis.faces', assetId: m.assetId, field: 'faces', value: { run: m.runId, faces: faces.length } }]);
}

/** One colour of a photo's palette as stored. */
export interface ColorRow {
  name: string;
  hex: string;
  rgb: readonly [number, number, number];
  percentage: number;
  share: number;
  lab: readonly [number, number, number];
}

/** A photo's palette (replacing the one before). */
export function setColors(db: Db, m: Measured, colors: readonly ColorRow[]): void {
  stmt(db, 'DELETE FROM asset_colors WHERE asset_id = ?').run(m.assetId);
  const add = stmt(db, `INSERT INTO asset_colors (asset_id, position, name, hex, r, g, b, percentage, share, lab_l, lab_a, lab_b) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  colors.forEach((c, i) => add.run(m.assetId, i, c.name, c.hex, c.rgb[0], c.rgb[1], c.rgb[2], c.percentage, c.share, c.lab[0], c.lab[1], c.lab[2]));
  stmt(db, 'INSERT OR REPLACE INTO asset_color_scans (asset_id, run_id, params, measured_at) VALUES (?, ?, ?, ?)').run(m.assetId, m.runId, JSON.stringify(m.params), m.at);
  recordOperations(db, null, [{ op: 'analysis.colors', assetId: m.assetId, field: 'colors', value: { run: m.runId, colors: colors.map((c) => ({ name: c.name, hex: c.hex })) } }]);
}
