// Names of stored grid pictures (relative to the cache dir), kept apart from thumbs.ts so
// that readers of the catalogue (search) can tell them apart without loading the decoders.

/** The embedded preview a scan shows first is stored as '<hash>.embedded.jpg' beside the full thumbnail. */
export const EMBEDDED_SUFFIX = '.embedded.jpg';

/** Whether a stored thumbnail (assets.thumb) is an embedded preview rather than the full thumbnail. */
export function isEmbeddedThumb(rel: string): boolean {
  return rel.endsWith(EMBEDDED_SUFFIX);
}
