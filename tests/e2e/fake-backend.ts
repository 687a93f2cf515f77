import type { ApiEnvelope, AssetDetail, AssetSummary, SearchQuery } from '../../src-preload/contract';
import { mediaToken } from '../../src-main/core/media';
import { allExtended } from '../../src-main/metadata/extended-fields';
import type { Backend } from './renderer';

// A synthetic catalogue of any size for renderer-only tests (virtualisation, paging,
// selection at scale). It answers like the real Api and records every call, so a test can
// assert what the renderer asked for.

export interface FakeCall {
  method: string;
  args: unknown;
}

export function fakeBackend(opts: { count: number; thumbFile: string; mediaRoot: string }): Backend & { calls: FakeCall[] } {
  const thumb = mediaToken(opts.thumbFile);
  const rating = new Map<number, number>();
  const summary = (id: number): AssetSummary => ({
    id,
    name: `IMG_${String(id).padStart(6, '0')}.jpg`,
    kind: 'image',
    format: 'jpg',
    width: 640,
    height: 427,
    durationS: null,
    takenAt: '2024-05-31T12:00:00',
    rating: rating.get(id) ?? 0,
    label: null,
    thumb,
    thumbState: 'full',
    stackCount: 0,
    similarGroup: null,
    hasError: false,
    folderOnline: true,
    keywordCount: 0,
  });
  const matching = (q: SearchQuery): number[] => {
    const ids = Array.from({ length: opts.count }, (_, i) => i + 1);
    return q.text ? ids.filter((id) => summary(id).name.includes(q.text!)) : ids;
  };
  const handlers: Record<string, (a: never) => unknown> = {
    appInfo: () => ({ version: 'fake', dataDir: '/fake', native: false }),
    listFolders: () => [{ id: 1, path: opts.mediaRoot, online: true, assetCount: opts.count, errorCount: 0, addedAt: 0, lastScanAt: 0, scanning: false }],
    facets: () => ({ cameras: [], kinds: [{ kind: 'image', count: opts.count }], total: opts.count }),
    search: ({ query, page }: { query: SearchQuery; page: { offset: number; limit: number } }) => {
      const ids = matching(query);
      return { total: ids.length, offset: page.offset, items: ids.slice(page.offset, page.offset + page.limit).map(summary) };
    },
    searchIds: ({ query }: { query: SearchQuery }) => Int32Array.from(matching(query)),
    getAsset: ({ id }: { id: number }): AssetDetail => ({
      ...summary(id),
      path: `${opts.mediaRoot}/${summary(id).name}`,
      folderId: 1,
      size: 1_000_000,
      rights: { headline: null, creator: null, copyright: null, credit: null, city: null, country: null, ...allExtended({}) },
      blockDisagreement: null,
      mtimeMs: 0,
      contentHash: null,
      orientation: 1,
      cameraMake: null,
      cameraModel: null,
      lens: null,
      exposure: { aperture: null, shutter: null, iso: null, focalLength: null, focalLength35: null, exposureBias: null, flash: null },
      gps: null,
      colorLabel: null,
      videoCodec: null,
      audioCodec: null,
      keywords: [],
      caption: null,
      title: null,
      addedAt: 0,
      preview: thumb,
      original: thumb,
      errors: [],
      stack: [],
      duplicates: [],
    }),
    setRating: ({ ids, rating: r }: { ids: number[]; rating: number }) => ids.forEach((id) => rating.set(id, r)),
    listKeywords: () => [],
  };
  const calls: FakeCall[] = [];
  return {
    calls,
    mediaRoots: async () => [opts.mediaRoot],
    async invoke(method, args): Promise<ApiEnvelope<unknown>> {
      calls.push({ method, args });
      const handler = handlers[method];
      if (!handler) return { ok: false, error: { kind: 'internal', message: `The fake Api does not do ${method}.` } };
      return { ok: true, value: (handler(args as never) ?? null) as unknown };
    },
  };
}
