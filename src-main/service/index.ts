// The cloud service: client, endpoint table, preparation of what leaves the machine.
export { ServiceClient, DEFAULT_BASE_URL, type Credentials, type CredentialSource, type ServiceClientOptions } from './client';
export { ServiceError, type ServiceErrorKind } from './errors';
export { ENDPOINTS, GENERATE_MODELS, EDIT_MODELS, billingKey, type Endpoint, type EndpointName } from './endpoints';
export { prepareImage, prepareVideo, probeVideo, type PreparedImage, type PreparedVideo } from './prepare';
export { ugcClassOf } from './parse';
export type * from './types';
