// The key a client address is counted under (rate limits, sign-in lock-out):
// IPv4 as is, IPv4 written as IPv6 as IPv4, IPv6 per /64, anything else as
// its text. addressKey keeps the last answer, so the cases run in an order
// that alternates addresses and repeats them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressKey } from '../../src/domain/client-address.ts';

const CASES: ReadonlyArray<readonly [string, string]> = [
  ['127.0.0.1', '127.0.0.1'],
  ['127.0.0.1', '127.0.0.1'],
  ['::ffff:192.0.2.1', '192.0.2.1'],
  ['::FFFF:192.0.2.1', '192.0.2.1'],
  ['127.0.0.1', '127.0.0.1'],
  ['2001:db8::1', '2001:db8:0:0::/64'],
  ['2001:0db8:0000:0000:abcd::7', '2001:db8:0:0::/64'],
  ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
  ['2001:db8:1:2:ffff:4:5:6', '2001:db8:1:2::/64'],
  ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ['::1', '0:0:0:0::/64'],
  ['2001:db8::1', '2001:db8:0:0::/64'],
  ['not:an::address::at all', 'not:an::address::at all'],
  ['unknown', 'unknown'],
  ['127.0.0.1', '127.0.0.1'],
];

describe('addressKey', () => {
  it('keys each address as its rule says, in any order', () => {
    for (const [address, key] of CASES) assert.equal(addressKey(address), key, address);
    for (const [address, key] of [...CASES].reverse()) assert.equal(addressKey(address), key, address);
  });

  it('cuts an overlong text before looking at it', () => {
    const long = `${'1'.repeat(64)}2`;
    assert.equal(addressKey(long), '1'.repeat(64));
    assert.equal(addressKey('127.0.0.1'), '127.0.0.1');
    assert.equal(addressKey(long), '1'.repeat(64));
  });
});
