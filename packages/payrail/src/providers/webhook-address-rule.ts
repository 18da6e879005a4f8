// Which addresses a webhook may be delivered to (behaviour.md section 11),
// in both environments: public addresses only (public-address.ts), with two
// exceptions in the sandbox. A loopback receiver is taken while Payrail
// itself is local-only: it listens on loopback (the default local `npm
// start`, HOST 127.0.0.1), trusts no reverse proxy (PAYRAIL_TRUSTED_PROXIES
// unset) and its public URL, when set, names a loopback host. Then only the
// developer's own machine can reach it anyway. A sandbox published through a
// proxy listens on loopback too, but every self-service account reaches it,
// and delivery statuses and latencies would let them probe the host's
// loopback services. And the operator may list addresses or ranges in
// PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES (a receiver on a private network, or
// loopback for a published sandbox). A shared sandbox (HOST 0.0.0.0, or
// behind a proxy) thus never lets a self-service account probe the network
// it runs in.
import net from 'node:net';
import { embeddedIpv4, isLoopbackAddress, isPublicAddress } from './public-address.ts';

export interface WebhookAddressRule {
  /** Production: https only. */
  readonly httpsOnly: boolean;
  /** Whether the address (an IP literal) may be sent to. */
  allows(address: string): boolean;
  /** What a refusal says, after the field name ("url must not name ..."). */
  readonly refusal: string;
}

/** True when the server listens on loopback only (HOST is a loopback address or "localhost"). */
export function listensOnLoopbackOnly(host: string): boolean {
  return host === 'localhost' || isLoopbackAddress(host);
}

/** True when a URL's host is loopback (a loopback address or a localhost name); false for anything else or no URL. */
export function urlNamesLoopback(url: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  const bare = hostname.replace(/\.$/, '');
  return bare === 'localhost' || bare.endsWith('.localhost') || isLoopbackAddress(hostname);
}

/**
 * True when only this machine can reach Payrail: it listens on loopback,
 * trusts no reverse proxy and its public URL names a loopback host.
 */
export function reachableLocallyOnly(config: Pick<AddressRuleSettings, 'host' | 'trustedProxies' | 'publicUrl'>): boolean {
  return listensOnLoopbackOnly(config.host) && config.trustedProxies.length === 0 && urlNamesLoopback(config.publicUrl);
}

/** The allow-list setting's entries (IP addresses or CIDR ranges) as a BlockList; throws a text naming a bad entry. */
export function addressList(entries: readonly string[]): net.BlockList {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address = '', prefixText] = entry.split('/');
    const family = net.isIP(address);
    const bits = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? bits : Number(prefixText);
    if (family === 0 || !/^\d{1,3}$/.test(prefixText ?? '0') || prefix > bits) throw new Error(`"${entry.slice(0, 60)}" is not an IP address or CIDR range`);
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

function listed(list: net.BlockList, address: string): boolean {
  const bare = address.replace(/%.*$/, '');
  const family = net.isIP(bare);
  if (family === 0) return false;
  if (list.check(bare, family === 4 ? 'ipv4' : 'ipv6')) return true;
  const carried = family === 6 ? embeddedIpv4(bare) : null;
  return carried !== null && list.check(carried, 'ipv4');
}

/** The settings the rule reads (config.ts): the environment, how Payrail is reached and the allow-list. */
export interface AddressRuleSettings {
  readonly environment: 'sandbox' | 'production';
  readonly host: string;
  /** PAYRAIL_TRUSTED_PROXIES: any entry means Payrail is published through a proxy. */
  readonly trustedProxies: readonly string[];
  /** PAYRAIL_PUBLIC_URL (defaults to http://HOST:PORT). */
  readonly publicUrl: string;
  readonly webhookAllowedAddresses: readonly string[];
}

export function webhookAddressRule(config: AddressRuleSettings): WebhookAddressRule {
  if (config.environment === 'production') {
    return {
      httpsOnly: true,
      allows: isPublicAddress,
      refusal: 'must not name a loopback, private or link-local address, or another special-purpose one, in production',
    };
  }
  const loopback = reachableLocallyOnly(config);
  const allowed = addressList(config.webhookAllowedAddresses);
  return {
    httpsOnly: false,
    allows: (address) => isPublicAddress(address) || (loopback && isLoopbackAddress(address)) || listed(allowed, address),
    refusal:
      `must not name a loopback, private, link-local or other special-purpose address in the sandbox` +
      `${loopback ? ' (loopback is taken while Payrail is reachable from this machine only)' : ''}, unless the operator lists it in PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES`,
  };
}

/** Whether a URL's host, as written, may be sent to: IP literals and localhost names are judged here; other names on each delivery, once resolved. */
export function hostAllowed(rule: WebhookAddressRule, hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return rule.allows('127.0.0.1') && rule.allows('::1');
  if (net.isIP(host) !== 0) return rule.allows(host);
  return true;
}
