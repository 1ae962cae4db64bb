/**
 * What GET /sessions shows of where a session came from, coarse on purpose: the network (an
 * IPv4 /24, an IPv6 /48), not the address, and the browser or client family, not the user agent.
 * Enough for a person to tell their phone from a stranger's laptop; little for a data leak.
 */
export function approximateNetwork(address: string | undefined): string | undefined {
  const text = address?.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  if (!text) return undefined;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.\d{1,3}$/.exec(text);
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.0/24`;
  if (!text.includes(':')) return undefined;
  const [head = '', tail] = text.replace(/%.*$/, '').toLowerCase().split('::');
  const groups = head === '' ? [] : head.split(':');
  // Fewer than three groups before a `::` means the rest of the /48 is zeros.
  if (tail === undefined && groups.length !== 8) return undefined;
  const prefix = [...groups.slice(0, 3), '0', '0', '0'].slice(0, 3);
  if (!prefix.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return `${prefix.map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/48`;
}

/** The client family, from the User-Agent header; order matters (Edge and Opera say Chrome too). */
const FAMILIES: ReadonlyArray<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bChrome\/|\bCriOS\/|\bChromium\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
  [/^okhttp\//, 'okhttp'],
  [/^python-requests\/|^python-httpx\//, 'Python'],
  [/^Go-http-client\//, 'Go'],
  [/^node-fetch|^undici|^node\b/, 'Node.js'],
];

export function clientFamily(userAgent: string | undefined): string {
  if (!userAgent) return 'unknown';
  for (const [pattern, family] of FAMILIES) if (pattern.test(userAgent)) return family;
  return 'other';
}
