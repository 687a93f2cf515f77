/**
 * syncBuildMax: up to this many assets the index is built on the spot (~25 ms); above it, in a
 * worker thread while SQL answers (issue 18: no main-thread step over ~20 ms). rebuildDirty: more changed assets than
 * this (and than a quarter of the catalogue) at once, and it is built again rather than
 * patched. Tests lower them to exercise those paths.
 */
export const indexOptions = { syncBuildMax: 2_000, rebuildDirty: 50_000 };
