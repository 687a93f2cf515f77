import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeCertificate, startFtpServer } from '../helpers/ftp-server';
import { cli, creds, makeLibrary, makeSource, PASSWORD, same, USER } from '../helpers/upload-cli';

// `tagsmith upload` over FTPS (explicit TLS, data channel protected) to pyftpdlib on loopback,
// its self-signed certificate trusted through NODE_EXTRA_CA_CERTS: several files, each
// byte-identical on the server and received once. (The refusal of an untrusted certificate:
// upload.test.ts.)

const LONG = 900_000;
let source: string;

beforeAll(async () => {
  source = await makeSource();
}, LONG);

describe('tagsmith upload over FTPS (explicit TLS)', { timeout: LONG }, () => {
  it('sends several files whole to a server whose certificate is trusted', async () => {
    const files = ['harbour.jpg', 'pier.jpg', 'nets.jpg'];
    const { root, lib, photo } = await makeLibrary(source, 'ftps-full', files);
    const tls = makeCertificate(root);
    const server = await startFtpServer({ dir: join(root, 'server'), user: USER, password: PASSWORD, log: join(root, 'ftp.log'), tls });
    try {
      const r = await cli(lib, ['upload', '--agency', 'adobe', ...files.map(photo), '--url', `ftps://127.0.0.1:${server.port}/up`, '--json'], { ...creds, NODE_EXTRA_CA_CERTS: tls.cert });
      expect(r.code, r.stderr).toBe(0);
      const out = r.json<{ uploaded: string[]; failed: { path: string; reason: string }[] }>();
      expect(out.failed).toEqual([]);
      expect(out.uploaded.sort()).toEqual(files.map(photo).sort());
      for (const f of files) {
        expect(existsSync(join(server.dir, 'up', f)), f).toBe(true);
        expect(same(join(server.dir, 'up', f), photo(f)), f).toBe(true);
      }
      const received = server.log().filter((l) => l.startsWith('RECEIVED')).map((l) => l.split(' ')[1]);
      expect(received.sort()).toEqual([...files].sort());
    } finally {
      await server.stop();
    }
  });
});
