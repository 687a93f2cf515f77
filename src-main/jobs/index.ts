// The durable job queue for the cloud service (queue.ts; its lanes, holds, caps, retry, cancel and events beside it).
export { JobQueue, type JobQueueOptions } from './queue';
export { JobOutcome, type JobContext, type JobHandler, type JobDescription, type QueueTuning } from './job-handler';
export { laneOf } from './lanes';
export { analyzeHandler, taskHandler, builtinHandlers, type AnalyzePayload, type AnalyzeEndpoint, type TaskPayload, type TaskEndpoint, type TaskJobResult } from './handlers';
export { cacheKeyOf } from './store';
export type * from './types';
