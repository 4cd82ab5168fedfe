/** /probe's allow-list: URLs compared by their parsed parts (the schema validates entries with it too). */

/** One entry of probe.allowed_urls: scheme, host, port (or any) and a path prefix. */
export interface AllowRule {
  protocol: string;
  hostname: string;
  /** '' for the scheme's default port, '*' for any. */
  port: string;
  path: string;
}

/**
 * Parse an allowed_urls entry: `scheme://host[:port][/path]`, where a port of `*` (or a bare
 * trailing `:`) allows any port. User-info, a query or a fragment make the entry invalid.
 */
export function parseAllowRule(entry: string): AllowRule | undefined {
  const m = /^(https?):\/\/([^/?#@]+)(\/[^?#]*)?$/i.exec(entry);
  if (!m) return undefined;
  let authority = m[2]!;
  const anyPort = /:\*?$/.test(authority) && !/^\[[^\]]*$/.test(authority.replace(/:\*?$/, ''));
  if (anyPort) authority = authority.replace(/:\*?$/, '');
  try {
    const u = new URL(`${m[1]!.toLowerCase()}://${authority}${m[3] ?? '/'}`);
    return { protocol: u.protocol, hostname: u.hostname, port: anyPort ? '*' : u.port, path: u.pathname };
  } catch {
    return undefined;
  }
}

/** Why `target` may not be probed, or its parsed URL. Compares parsed parts, never string prefixes. */
export function checkProbeUrl(target: string, rules: readonly AllowRule[]): { url: URL } | { status: number; reason: string } {
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    return { status: 400, reason: 'target is not a configured target name nor a valid URL' };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { status: 400, reason: 'target URL must be http or https' };
  if (u.username !== '' || u.password !== '' || /^[a-z]+:\/\/[^/?#]*@/i.test(target)) return { status: 400, reason: 'target URL must not carry user-info' };
  if (u.search !== '' || u.hash !== '') return { status: 400, reason: 'target URL must not carry a query or fragment' };
  const path = decodedPath(u.pathname);
  if (path === undefined) return { status: 400, reason: "target URL path must not encode '/', '\\', '.' or '..' segments" };
  const ok = rules.some((r) => {
    if (r.protocol !== u.protocol || r.hostname !== u.hostname) return false;
    if (r.port !== '*' && r.port !== u.port) return false;
    const allowed = decodedPath(r.path);
    if (allowed === undefined) return false;
    if (allowed === '/' || path === allowed) return true;
    const prefix = allowed.endsWith('/') ? allowed : `${allowed}/`;
    return path.startsWith(prefix);
  });
  return ok ? { url: u } : { status: 400, reason: 'target URL is not in probe.allowed_urls' };
}

/**
 * A path with each segment decoded until it no longer changes, so that prefixes are compared on
 * what a server will see, however many times it or a proxy in front of it decodes; none when a
 * segment decodes, at any round, to a separator or a dot segment (`..%2F` or `%252e%252e` would
 * climb out of a prefix once decoded), or does not decode at all.
 */
function decodedPath(pathname: string): string | undefined {
  const out: string[] = [];
  for (const seg of pathname.split('/')) {
    // Each round that changes the segment shortens it (`%XX` becomes one character): this ends.
    let d = seg;
    for (;;) {
      let next: string;
      try {
        next = decodeURIComponent(d);
      } catch {
        return undefined;
      }
      if (next === d) break;
      if (/[/\\]/.test(next) || next === '.' || next === '..') return undefined;
      d = next;
    }
    out.push(d);
  }
  return out.join('/');
}
