import type { Api } from '../../src-preload/contract';
import { listVoices, modelRules } from '../creative';
import type { LibraryCtx } from '../library/context';
import { ServiceError } from '../service/errors';
import { ApiError } from '../core/errors';
import type { Tagsmith } from './tagsmith';

// The creative workflows as Api methods; the logic lives in creative/.

export type CreativeMethods = Pick<
  Api,
  | 'listVoices' | 'previewSpeech' | 'startSpeech' | 'startLipsync' | 'modelRules' | 'previewImageJob' | 'startGenerate' | 'startEdit'
  | 'startFaceSwap' | 'startVectorize' | 'listCreativeTasks' | 'getCreativeTask' | 'creationOf' | 'cancelCreativeTask' | 'keepWaitingCreativeTask' | 'retryCreativeTask' | 'refetchResult'
  | 'creativeSettings' | 'setCreativeSettings'
>;

/** Service errors (no credentials, offline, ...) reach the renderer as messages it can show. */
async function mapped<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ServiceError) throw new ApiError(e.kind === 'invalid_input' ? 'validation' : 'io', e.message);
    throw e;
  }
}

export function creativeMethods(ctx: LibraryCtx, service: Tagsmith): CreativeMethods {
  const creative = service.creative;
  return {
    listVoices: (args) => mapped(() => listVoices(ctx, () => service.client(), args)),
    previewSpeech: async (args) => creative.previewSpeech(args),
    startSpeech: async (args) => creative.startSpeech(args),
    startLipsync: (args) => creative.startLipsync(args),
    modelRules: async () => modelRules(),
    previewImageJob: async (args) => creative.previewImageJob(args),
    startGenerate: (args) => creative.startGenerate(args),
    startEdit: (args) => creative.startEdit(args),
    startFaceSwap: (args) => creative.startFaceSwap(args),
    startVectorize: (args) => creative.startVectorize(args),
    listCreativeTasks: async (args) => creative.list(args ?? {}),
    getCreativeTask: async ({ id }) => creative.view(id),
    creationOf: async ({ assetId }) => creative.creationOf(assetId),
    cancelCreativeTask: async ({ id }) => creative.cancel(id),
    keepWaitingCreativeTask: async ({ id }) => creative.keepWaiting(id),
    retryCreativeTask: ({ id, confirmBilledAgain }) => creative.retry(id, confirmBilledAgain),
    refetchResult: ({ id, taskId }) => mapped(() => creative.refetch(id, taskId)),
    creativeSettings: async () => creative.settings(),
    setCreativeSettings: async ({ settings }) => creative.setSettings(settings),
  };
}
