// Similarity (issue 17): perceptual fingerprints of pictures, groups of one scene (bursts
// and near-duplicates) with a suggested best frame, and "find similar".
export { fingerprintPixels, fingerprintDistance, type Fingerprint } from './fingerprint';
export { countMissingFingerprints, fillMissingFingerprints, loadFingerprints, missingFingerprintIds, saveFingerprint } from './store';
export { findGroups, type GroupKind, type SimilarGroup } from './groups';
export { nearestTo, NEAREST_MAX_DISTANCE, type Neighbour } from './nearest';
