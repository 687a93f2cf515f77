// Request body parsing: multipart/form-data (no busboy here), url-encoded forms and JSON.

export interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

export interface ParsedBody {
  fields: Record<string, string>;
  files: Record<string, Part>;
  json?: unknown;
  jsonError?: string;
}

export function parseMultipart(body: Buffer, contentType: string): Part[] {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!m) return [];
  const boundary = Buffer.from('--' + (m[1] ?? m[2]).trim());
  const parts: Part[] = [];
  let pos = body.indexOf(boundary);
  while (pos !== -1) {
    pos += boundary.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break; // closing "--"
    if (body[pos] === 0x0d && body[pos + 1] === 0x0a) pos += 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd === -1) break;
    const headers = body.subarray(pos, headerEnd).toString('utf8');
    const next = body.indexOf(boundary, headerEnd + 4);
    if (next === -1) break;
    // The part data ends with CRLF before the next boundary.
    const data = body.subarray(headerEnd + 4, next - 2);
    const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    const type = /content-type:\s*([^\r\n]*)/i.exec(headers)?.[1]?.trim();
    if (name !== undefined) parts.push({ name, filename, contentType: type, data: Buffer.from(data) });
    pos = next;
  }
  return parts;
}

export function parseBody(body: Buffer, contentType: string | undefined): ParsedBody {
  const out: ParsedBody = { fields: {}, files: {} };
  const ct = (contentType ?? '').toLowerCase();
  if (ct.startsWith('multipart/form-data')) {
    for (const part of parseMultipart(body, contentType ?? '')) {
      if (part.filename !== undefined) out.files[part.name] = part;
      else out.fields[part.name] = part.data.toString('utf8');
      // A file part sent without filename still counts as the upload.
      if (part.filename === undefined && !out.files[part.name]) out.files[part.name] = part;
    }
  } else if (ct.startsWith('application/x-www-form-urlencoded')) {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) out.fields[k] = v;
  } else if (ct.startsWith('application/json')) {
    try {
      out.json = JSON.parse(body.toString('utf8'));
    } catch (e) {
      out.jsonError = (e as Error).message;
    }
  }
  return out;
}

export interface DataUri {
  mime: string;
  data: Buffer;
}

/** `data:<mime>;base64,<payload>`; anything else is not a Data URI. */
export function parseDataUri(value: string): DataUri | null {
  const m = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)(?:;[a-z0-9-]+=[^;,]*)*;base64,(.*)$/is.exec(value);
  if (!m) return null;
  const payload = m[2].replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload) || payload.length === 0) return null;
  return { mime: m[1].toLowerCase(), data: Buffer.from(payload, 'base64') };
}
