// The system proxy, as Electron's session.resolveProxy() reports it in PAC form
// ("PROXY host:port; DIRECT", "HTTPS host:port", "SOCKS5 host:port", "DIRECT"), turned into the
// HTTP(S)_PROXY variables the service client reads. Only when the user set none themselves.

/** The proxy URL for the first HTTP proxy in a PAC answer, or null (DIRECT, SOCKS: not used). */
export function proxyFromPac(rule: string): string | null {
  for (const part of rule.split(';')) {
    const m = /^\s*(PROXY|HTTPS)\s+(\S+)\s*$/i.exec(part);
    if (m) return `${m[1].toUpperCase() === 'HTTPS' ? 'https' : 'http'}://${m[2]}`;
  }
  return null;
}

const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

/** Put the system proxy in the environment unless one is set there; returns what was set. */
export function adoptSystemProxy(rule: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (PROXY_VARS.some((k) => env[k])) return null;
  const proxy = proxyFromPac(rule);
  if (proxy) {
    env.HTTPS_PROXY = proxy;
    env.HTTP_PROXY = proxy;
  }
  return proxy;
}
