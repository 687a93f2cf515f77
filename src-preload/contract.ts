// The one contract between the renderer and main: every Api method, every event, and the
// DTOs they carry. Types only — both sides import it with `import type`. Each domain's types,
// methods and events live in contract/<domain>.ts; this file joins them into Api and
// ApiEvents and re-exports them all, so callers import from here.

import type { AgenciesApi } from './contract/agencies';
import type { AnalysisApi } from './contract/analysis';
import type { CollectionsApi } from './contract/collections';
import type { CreativeApi, CreativeEvents } from './contract/creative';
import type { LibraryApi, LibraryEvents } from './contract/library';
import type { MetadataApi } from './contract/metadata';
import type { ServiceApi, ServiceEvents } from './contract/service';
import type { SystemApi } from './contract/system';
import type { RenameApi } from './contract/rename';
import type { SimilarApi } from './contract/similar';
import type { StudioApi, StudioEvents } from './contract/studio';
import type { WorkflowsApi, WorkflowsEvents } from './contract/workflows';

export type * from './contract/library';
export type * from './contract/service';
export type * from './contract/workflows';
export type * from './contract/metadata';
export type * from './contract/analysis';
export type * from './contract/creative';
export type * from './contract/system';
export type * from './contract/agencies';
export type * from './contract/rename';
export type * from './contract/collections';
export type * from './contract/similar';
export type * from './contract/studio';

/** A human-readable error: `kind` says which, `message` says what happened and what to do. */
export interface ApiErrorShape {
  kind: 'validation' | 'not_found' | 'conflict' | 'io' | 'internal';
  message: string;
  field?: string;
}

export interface Api extends LibraryApi, ServiceApi, WorkflowsApi, MetadataApi, AnalysisApi, CreativeApi, SystemApi, AgenciesApi, CollectionsApi, RenameApi, SimilarApi, StudioApi {}

export type ApiMethod = keyof Api;

export interface ApiEvents extends LibraryEvents, ServiceEvents, WorkflowsEvents, CreativeEvents, StudioEvents {}

export type ApiEventName = keyof ApiEvents;

/** What a call returns across the boundary: never a thrown Error object, always this envelope. */
export type ApiEnvelope<T> = { ok: true; value: T } | { ok: false; error: ApiErrorShape };

/** What preload exposes as `window.api`. */
export type ExposedApi = Api & {
  on<E extends ApiEventName>(event: E, listener: (payload: ApiEvents[E]) => void): () => void;
  /** The base prefix for media tokens (e.g. 'tsm://app/'). */
  mediaBase: string;
  /** The path of a dropped file or folder (Electron only). */
  pathForFile?: (file: File) => string;
};
