/**
 * The unit a source is counted in: an IPv4 address, or an IPv6 /64 (one host usually holds a
 * whole /64, so counting single IPv6 addresses would let it rotate through 2^64 of them).
 * A host that gives no address puts every request in one source, `unknown`: limits still hold,
 * at the price of sharing one budget (every real host gives one: API Gateway, the Node server,
 * cf-connecting-ip on Workers).
 */
export function sourceKeyOf(address: string | undefined): string {
  const text = address?.trim();
  if (!text) return 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(text);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!text.includes(':')) return text;
  const hextets = expandIpv6(text.replace(/%.*$/, ''));
  return hextets === undefined ? text : `${hextets.slice(0, 4).join(':')}::/64`;
}

/** The eight hextets of an IPv6 address, without leading zeros; undefined if it is not one. */
function expandIpv6(address: string): string[] | undefined {
  const halves = address.toLowerCase().split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string | undefined) => (part ? part.split(':') : []);
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  // An embedded IPv4 tail (::1.2.3.4) takes two hextets' place; only the /64 prefix matters here.
  const last = tail.length > 0 ? tail : head;
  if (last.length > 0 && last[last.length - 1]!.includes('.')) last.splice(last.length - 1, 1, '0', '0');
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const hextets = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!hextets.every((part) => /^[0-9a-f]{1,4}$/.test(part))) return undefined;
  return hextets.map((part) => part.replace(/^0+(?=.)/, ''));
}
