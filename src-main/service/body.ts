// Request bodies that stream: multipart uploads from disk or memory, and JSON whose media
// fields are Data URIs built from files chunk by chunk (a 100 MB clip is never held as
// several copies in memory). Each body knows its exact length, so it goes with Content-Length.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { mimeFor } from '../core/media';
import type { MediaSource, UploadSource } from './types';

export interface StreamBody {
  contentType: string;
  length: number;
  /** a fresh iterable per call (retries re-read the file) */
  chunks(): AsyncIterable<Buffer>;
}

type Piece = { kind: 'bytes'; data: Buffer } | { kind: 'file'; path: string; size: number } | { kind: 'base64file'; path: string; size: number };

const b64len = (n: number) => 4 * Math.ceil(n / 3);

function pieceLength(p: Piece): number {
  return p.kind === 'bytes' ? p.data.length : p.kind === 'file' ? p.size : b64len(p.size);
}

/** Read a file in chunks whose sizes are multiples of 3, so each encodes to base64 on its own. */
async function* base64File(path: string): AsyncIterable<Buffer> {
  let carry = Buffer.alloc(0);
  for await (const chunk of createReadStream(path, { highWaterMark: 3 * 128 * 1024 })) {
    const buf = carry.length ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    const usable = buf.length - (buf.length % 3);
    if (usable) yield Buffer.from(buf.subarray(0, usable).toString('base64'), 'latin1');
    carry = Buffer.from(buf.subarray(usable));
  }
  if (carry.length) yield Buffer.from(carry.toString('base64'), 'latin1');
}

function streamOf(pieces: Piece[], contentType: string): StreamBody {
  return {
    contentType,
    length: pieces.reduce((n, p) => n + pieceLength(p), 0),
    async *chunks() {
      for (const p of pieces) {
        if (p.kind === 'bytes') yield p.data;
        else if (p.kind === 'file') for await (const c of createReadStream(p.path, { highWaterMark: 256 * 1024 })) yield c as Buffer;
        else yield* base64File(p.path);
      }
    },
  };
}

export interface MultipartFile {
  field: string;
  source: UploadSource;
}

/** multipart/form-data: text fields, then files. */
export async function multipart(fields: Record<string, string>, files: MultipartFile[]): Promise<StreamBody> {
  const boundary = `----tagsmith${randomBytes(12).toString('hex')}`;
  const pieces: Piece[] = [];
  const text = (s: string) => pieces.push({ kind: 'bytes', data: Buffer.from(s, 'utf8') });
  for (const [k, v] of Object.entries(fields)) {
    text(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  }
  for (const f of files) {
    const src = f.source;
    const name = (src.name ?? ('path' in src ? basename(src.path) : 'upload')).replace(/["\r\n]/g, '_');
    const mime = src.mime ?? ('path' in src ? mimeFor(src.path) : 'application/octet-stream');
    text(`--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${name}"\r\nContent-Type: ${mime}\r\n\r\n`);
    if ('data' in src) pieces.push({ kind: 'bytes', data: src.data });
    else pieces.push({ kind: 'file', path: src.path, size: (await stat(src.path)).size });
    text('\r\n');
  }
  text(`--${boundary}--\r\n`);
  return streamOf(pieces, `multipart/form-data; boundary=${boundary}`);
}

const isFileSource = (v: unknown): v is { path: string; mime?: string } | { data: Buffer; mime: string } =>
  !!v && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v) &&
  (typeof (v as { path?: unknown }).path === 'string' || Buffer.isBuffer((v as { data?: unknown }).data));

/**
 * JSON where every MediaSource object ({path} or {data, mime}) becomes a Data URI string.
 * Strings (URLs, ready Data URIs) pass through unchanged.
 */
export async function jsonWithMedia(value: Record<string, unknown>, mimeOf: (path: string) => string = mimeFor): Promise<StreamBody> {
  const token = `@@tsm-media-${randomBytes(8).toString('hex')}-`;
  const media: (MediaSource & object)[] = [];
  const replace = (v: unknown): unknown => {
    if (isFileSource(v)) {
      media.push(v);
      return `${token}${media.length - 1}@@`;
    }
    if (Array.isArray(v)) return v.map(replace);
    if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
      return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k, replace(x)]));
    }
    return v;
  };
  const json = JSON.stringify(replace(value));
  const pieces: Piece[] = [];
  const re = new RegExp(`${token}(\\d+)@@`, 'g');
  let last = 0;
  for (const m of json.matchAll(re)) {
    pieces.push({ kind: 'bytes', data: Buffer.from(json.slice(last, m.index), 'utf8') });
    const src = media[Number(m[1])] as { path: string; mime?: string } | { data: Buffer; mime: string };
    if ('data' in src) {
      pieces.push({ kind: 'bytes', data: Buffer.from(`data:${src.mime};base64,${src.data.toString('base64')}`, 'latin1') });
    } else {
      pieces.push({ kind: 'bytes', data: Buffer.from(`data:${src.mime ?? mimeOf(src.path)};base64,`, 'latin1') });
      pieces.push({ kind: 'base64file', path: src.path, size: (await stat(src.path)).size });
    }
    last = m.index! + m[0].length;
  }
  pieces.push({ kind: 'bytes', data: Buffer.from(json.slice(last), 'utf8') });
  return streamOf(pieces, 'application/json');
}

export function formBody(fields: Record<string, string>): StreamBody {
  const data = Buffer.from(new URLSearchParams(fields).toString(), 'utf8');
  return streamOf([{ kind: 'bytes', data }], 'application/x-www-form-urlencoded');
}
