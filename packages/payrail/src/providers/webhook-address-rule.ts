// Which addresses a webhook may be delivered to (behaviour.md section 11),
// in both environments: public addresses only (public-address.ts), with two
// exceptions in the sandbox. A loopback receiver is taken while Payrail
// itself listens on loopback only (the default local `npm start`, HOST
// 127.0.0.1): then only the developer's own machine can reach it anyway.
// And the operator may list addresses or ranges in
// PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES (a receiver on a private network). A
// shared sandbox (HOST 0.0.0.0) thus never lets a self-service account
// probe the network it runs in through delivery statuses and latencies.
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

/** The settings the rule reads (config.ts): the environment, the listening host and the allow-list. */
export interface AddressRuleSettings {
  readonly environment: 'sandbox' | 'production';
  readonly host: string;
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
  const loopback = listensOnLoopbackOnly(config.host);
  const allowed = addressList(config.webhookAllowedAddresses);
  return {
    httpsOnly: false,
    allows: (address) => isPublicAddress(address) || (loopback && isLoopbackAddress(address)) || listed(allowed, address),
    refusal:
      `must not name a loopback, private, link-local or other special-purpose address in the sandbox` +
      `${loopback ? ' (loopback is taken while Payrail listens on loopback only)' : ''}, unless the operator lists it in PAYRAIL_WEBHOOK_ALLOWED_ADDRESSES`,
  };
}

/** Whether a URL's host, as written, may be sent to: IP literals and localhost names are judged here; other names on each delivery, once resolved. */
export function hostAllowed(rule: WebhookAddressRule, hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return rule.allows('127.0.0.1') && rule.allows('::1');
  if (net.isIP(host) !== 0) return rule.allows(host);
  return true;
}
