/**
 * syncBuildMax: up to this many assets the index is built on the spot (~0.25 s); above it, a
 * step at a time in the background while SQL answers. rebuildDirty: more changed assets than
 * this (and than a quarter of the catalogue) at once, and it is built again rather than
 * patched. Tests lower them to exercise those paths.
 */
export const indexOptions = { syncBuildMax: 20_000, rebuildDirty: 50_000 };
