import dns from 'node:dns/promises';
import net from 'node:net';

/**
 * Where the service may send a webhook (CONTRACT.md section 13): never to a private, loopback or
 * link-local address in production, checked on the address the name resolves to (at registration,
 * and again at every delivery: a name may point elsewhere later). Outside production loopback is
 * allowed (a receiver on the developer's machine or in a test), still never a private network.
 */
const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const NEVER = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4],
] as const) {
  NEVER.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  ['::', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  NEVER.addSubnet(address, prefix, 'ipv6');
}

export interface AddressPolicy {
  /** Loopback targets (and plain http to them) are allowed: never in production. */
  allowLoopback: boolean;
}

/** Why an address may not be sent to; undefined when it may. */
export function refusedAddress(address: string, policy: AddressPolicy): string | undefined {
  const family: 'ipv4' | 'ipv6' = net.isIPv6(address) ? 'ipv6' : 'ipv4';
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
  const mapped = family === 'ipv6' ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] : undefined;
  const [checked, checkedFamily]: [string, 'ipv4' | 'ipv6'] = mapped ? [mapped, 'ipv4'] : [address, family];
  if (LOOPBACK.check(checked, checkedFamily)) return policy.allowLoopback ? undefined : 'a loopback address';
  if (NEVER.check(checked, checkedFamily)) return 'a private, link-local or reserved address';
  return undefined;
}

/** Why a URL may not be an endpoint, before any lookup (scheme, credentials); undefined when it may. */
export function refusedUrl(url: URL, policy: AddressPolicy): string | undefined {
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && policy.allowLoopback && isLoopbackName(url.hostname)) return undefined;
  return policy.allowLoopback ? 'must be https (or http to a loopback address outside production)' : 'must be https';
}

function isLoopbackName(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || (net.isIP(bare) !== 0 && LOOPBACK.check(bare, net.isIPv6(bare) ? 'ipv6' : 'ipv4'));
}

/** Every address the host resolves to, each checked: the first allowed one to connect to, or why none may be used. */
export async function resolveAllowed(hostname: string, policy: AddressPolicy): Promise<{ address: string; family: 4 | 6 } | { refused: string }> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  let found: { address: string; family: number }[];
  try {
    found = net.isIP(bare) ? [{ address: bare, family: net.isIP(bare) }] : await dns.lookup(bare, { all: true, verbatim: true });
  } catch {
    return { refused: 'its host name does not resolve' };
  }
  // Any forbidden address refuses the whole name: a name that mixes them is not trusted with a round robin.
  for (const { address } of found) {
    const why = refusedAddress(address, policy);
    if (why) return { refused: `it resolves to ${why}` };
  }
  const first = found[0];
  if (!first) return { refused: 'its host name does not resolve' };
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
