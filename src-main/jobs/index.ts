// The durable job queue for the cloud service (see queue.ts).
export { JobQueue, JobOutcome, laneOf, type JobContext, type JobHandler, type JobDescription, type JobQueueOptions, type QueueTuning } from './queue';
export { analyzeHandler, taskHandler, builtinHandlers, type AnalyzePayload, type AnalyzeEndpoint, type TaskPayload, type TaskEndpoint, type TaskJobResult } from './handlers';
export { cacheKeyOf } from './store';
export type * from './types';
