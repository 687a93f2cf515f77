// Creative workflows (issue 6): voices and speech, lipsync, image generation and editing, face swap.
export { CreativeService, type CreativeOptions } from './service';
export { CREATIVE_JOB, creativeHandler, type CreativePayload } from './handler';
export { listVoices, refreshVoices, type VoiceFilter } from './voices';
export { modelRules, costPerSourceImage } from './rules';
export { splitText } from './text';
export { TRAINED_ALGORITHMIC_MEDIA } from './finalize';
