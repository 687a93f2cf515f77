import type { VoiceList, VoiceView } from '../../src-preload/contract';
import type { LibraryCtx } from '../library/context';
import { prepared } from '../library/db';
import type { ServiceClient } from '../service/client';

// The TTS voices: free to list, cached in the catalogue with when they were fetched, fetched
// again on request (or when nothing is cached), filtered locally.

export interface VoiceFilter {
  lang?: string;
  gender?: string;
  age?: string;
  text?: string;
  refresh?: boolean;
}

interface VoiceRow {
  api_name: string;
  language: string;
  gender: string;
  age: string;
  fetched_at: number;
}

export async function refreshVoices(ctx: LibraryCtx, client: ServiceClient): Promise<void> {
  const voices = await client.voices();
  const now = Date.now();
  ctx.db.transaction(() => {
    prepared(ctx.db, 'DELETE FROM tts_voices').run();
    const ins = prepared(ctx.db, 'INSERT OR REPLACE INTO tts_voices (api_name, language, gender, age, fetched_at) VALUES (?, ?, ?, ?, ?)');
    for (const v of voices) ins.run(v.api_name, v.language ?? '', v.gender ?? '', v.age ?? '', now);
  })();
}

export async function listVoices(ctx: LibraryCtx, client: () => ServiceClient, f: VoiceFilter = {}): Promise<VoiceList> {
  const count = prepared(ctx.db, 'SELECT count(*) FROM tts_voices').pluck().get() as number;
  if (f.refresh || count === 0) await refreshVoices(ctx, client());
  const rows = prepared(ctx.db, 'SELECT * FROM tts_voices ORDER BY language, api_name').all() as VoiceRow[];
  const eq = (a: string, b?: string) => b === undefined || b === '' || a.toLowerCase() === b.toLowerCase();
  const text = f.text?.trim().toLowerCase();
  const voices: VoiceView[] = rows
    .filter((r) => eq(r.language, f.lang) && eq(r.gender, f.gender) && eq(r.age, f.age))
    .filter((r) => !text || [r.api_name, r.language, r.gender, r.age].some((x) => x.toLowerCase().includes(text)))
    .map((r) => ({ apiName: r.api_name, language: r.language, gender: r.gender, age: r.age }));
  return {
    voices,
    fetchedAt: rows.length ? Math.min(...rows.map((r) => r.fetched_at)) : null,
    languages: [...new Set(rows.map((r) => r.language))].sort(),
  };
}
