// A finished task's result, whatever its shape: the interface says "string or object". An
// http(s) address is downloaded; a Data URI (or an inline SVG) is the file itself; an object
// is searched for the first of these. Nothing usable: null (the task is paid: never a failure).

export type TaskResult = { url: string } | { data: Buffer; ext: string };

const EXT: Record<string, string> = {
  'image/png': '.png', 'image/jpeg': '.jpg', 'image/webp': '.webp', 'image/svg+xml': '.svg', 'audio/wav': '.wav', 'audio/x-wav': '.wav',
  'audio/wave': '.wav', 'audio/mpeg': '.mp3', 'audio/mp3': '.mp3', 'audio/ogg': '.ogg', 'video/mp4': '.mp4', 'video/webm': '.webm', 'video/quicktime': '.mov',
};

function fromString(s: string): TaskResult | null {
  const t = s.trim();
  if (/^https?:\/\//i.test(t)) {
    try {
      return { url: new URL(t).href };
    } catch {
      return null;
    }
  }
  const m = /^data:([\w.+/-]+)?((?:;[\w-]+=[^;,]*)*)(;base64)?,(.*)$/is.exec(t);
  if (m) {
    const mime = (m[1] ?? 'application/octet-stream').toLowerCase();
    const data = m[3] ? Buffer.from(m[4], 'base64') : Buffer.from(decodeURIComponent(m[4]), 'utf8');
    return data.length ? { data, ext: EXT[mime] ?? '.bin' } : null;
  }
  if (/^(<\?xml[^>]*>\s*)?<svg[\s>]/i.test(t)) return { data: Buffer.from(t, 'utf8'), ext: '.svg' };
  return null;
}

/** The usable result in a status answer's `result` (a string, or an object as JSON text: see parseTaskState). */
export function resultOf(result: string | null | undefined): TaskResult | null {
  if (!result) return null;
  const direct = fromString(result);
  if (direct) return direct;
  let json: unknown;
  try {
    json = JSON.parse(result);
  } catch {
    return null;
  }
  const seen: unknown[] = [json];
  // Breadth first: the shallowest address wins ({url} before {thumbnails: [...]}).
  while (seen.length) {
    const v = seen.shift();
    if (typeof v === 'string') {
      const r = fromString(v);
      if (r) return r;
    } else if (Array.isArray(v)) seen.push(...v);
    else if (v && typeof v === 'object') seen.push(...Object.values(v as Record<string, unknown>));
  }
  return null;
}
