import type { ExposedApi } from '../../../src-preload/contract';

// The only module that touches `window.api`. Components reach the Api through
// useClient() (see ClientProvider), so tests can hand them a fake.

declare global {
  interface Window {
    api: ExposedApi;
  }
}

export type Client = ExposedApi;

export function windowClient(): Client {
  if (!window.api) throw new Error('The Tagsmith bridge (window.api) is not available.');
  return window.api;
}

/** A media token (thumbnail, preview, original) as a URL the <img>/<video> can load. */
export function mediaUrl(token: string, client: Pick<Client, 'mediaBase'> = windowClient()): string {
  return client.mediaBase + token;
}
