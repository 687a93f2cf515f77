// Quality, faces and colours: measurement runs through the queue, the measurements with their
// provenance, and culling (flags, reject below a score, histograms).
export {
  ANALYSIS_KINDS, attachAnalysis, sweepAnalysisRuns, collectAnalysisJobs, previewAnalysisRun, startAnalysisRun, getAnalysisRun, analysisRunAssets,
  serviceParams, importKeywordColors, type AnalysisRunView,
} from './runs';
export { getAssetAnalysis, getFaces, getColors } from './store';
export { setFlag, rejectBelow, histogram } from './culling';
export { UGC_LABELS, ugcClass, ugcLabel } from './ugc';
export { parseHex, rgbToLab, deltaE76, toHex, DEFAULT_COLOR_DISTANCE, DEFAULT_COLOR_SHARE, type Lab, type Rgb } from '../core/color';
export { derivativeSize, derivativeSizeOf } from './derivative';
export { runAnalysisToEnd } from './wait';
