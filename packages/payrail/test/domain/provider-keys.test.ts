// Installation-scoped provider keys (domain/provider-keys.ts) and the
// credential-on-file rule (domain/stored-credential.ts): pure functions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  INSTALLATION_ID_PATTERN,
  newInstallationId,
  PROVIDER_KEY_MAX_CHARS,
  parseProviderKey,
  providerKey,
  providerKeysOf,
  providerUuid,
} from '../../src/domain/provider-keys.ts';
import {
  type CardSourceKind,
  credentialOnFileOf,
  networkTransactionIdOf,
  parseCredentialOnFile,
  credentialOnFileText,
} from '../../src/domain/stored-credential.ts';
import { sameSandboxReference } from '../../src/providers/card-processor-sandbox.ts';

const ID = '0123456789abcdef0123456789abcdef';

describe('provider keys', () => {
  it('are at most 20 characters of [0-9a-z] and read back to the record, for every kind and the largest primary key', () => {
    for (const kind of ['charge', 'verification', 'transfer'] as const) {
      for (const pk of [1, 100000001, Number.MAX_SAFE_INTEGER]) {
        const key = providerKey(ID, kind, pk);
        assert.match(key, /^[0-9a-z]+$/);
        assert.ok(key.length <= PROVIDER_KEY_MAX_CHARS, key);
        assert.deepEqual(parseProviderKey(ID, key), { kind, pk });
      }
    }
    assert.throws(() => providerKey(ID, 'charge', 0));
    assert.throws(() => providerKey('not-an-id', 'charge', 1));
  });

  it("differ between installations; another installation's key and plain text read as nothing", () => {
    const other = newInstallationId();
    assert.match(other, INSTALLATION_ID_PATTERN);
    const keys = providerKeysOf(ID);
    assert.notEqual(keys.key('charge', 7), providerKeysOf(other).key('charge', 7));
    assert.equal(keys.parse(providerKeysOf(other).key('charge', 7)), null);
    for (const text of ['', '100000001', keys.key('charge', 7).toUpperCase(), `${keys.key('charge', 7).slice(0, 9)}07`])
      assert.equal(keys.parse(text), null, text);
  });

  it('UUIDs are the same for the same record and differ for another', () => {
    assert.equal(providerUuid(ID, 'transfer', 5), providerUuid(ID, 'transfer', 5));
    assert.notEqual(providerUuid(ID, 'transfer', 5), providerUuid(ID, 'charge', 5));
    assert.match(providerUuid(ID, 'transfer', 5), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('a UUID reads back as its record, in this installation only', () => {
    const keys = providerKeysOf(ID);
    for (const [kind, pk] of [
      ['transfer', 1],
      ['receiver', 77],
      ['charge', 2 ** 48 - 1],
    ] as const) {
      assert.deepEqual(keys.parseUuid(keys.uuid(kind, pk)), { kind, pk });
      assert.deepEqual(keys.parseUuid(keys.uuid(kind, pk).toUpperCase()), { kind, pk });
      assert.equal(providerKeysOf(newInstallationId()).parseUuid(keys.uuid(kind, pk)), null);
    }
    assert.throws(() => keys.uuid('transfer', 2 ** 48));
    for (const text of ['', 'not-a-uuid', '00000000-0000-4000-8000-000000000001', keys.uuid('transfer', 3).slice(0, 35)])
      assert.equal(keys.parseUuid(text), null, text);
  });

  it('the sandbox matches a pre-upgrade numeric reference only to the charge key of the same primary key', () => {
    const keys = providerKeysOf(ID);
    assert.ok(sameSandboxReference(keys.key('charge', 100000001), keys.key('charge', 100000001)));
    assert.ok(sameSandboxReference('100000001', keys.key('charge', 100000001)));
    assert.ok(!sameSandboxReference('100000002', keys.key('charge', 100000001)));
    assert.ok(!sameSandboxReference('100000001', keys.key('verification', 100000001)));
  });
});

describe('credential-on-file flags', () => {
  const facts = (source: CardSourceKind, extra: { saveCard?: boolean; scheduleRun?: boolean } = {}) =>
    credentialOnFileOf({ source, saveCard: extra.saveCard ?? false, scheduleRun: extra.scheduleRun ?? false, networkTransactionId: 'NTI1' });

  it('follow the card source', () => {
    assert.equal(facts('nonce'), null);
    assert.deepEqual(facts('nonce', { saveCard: true }), { use: 'initial', initiator: 'customer', reason: 'unscheduled', networkTransactionId: null });
    assert.deepEqual(facts('method'), { use: 'subsequent', initiator: 'customer', reason: 'unscheduled', networkTransactionId: 'NTI1' });
    assert.deepEqual(facts('method', { scheduleRun: true }), { use: 'subsequent', initiator: 'merchant', reason: 'recurring', networkTransactionId: 'NTI1' });
    assert.deepEqual(facts('token'), { use: 'subsequent', initiator: 'customer', reason: 'unscheduled', networkTransactionId: 'NTI1' });
    assert.deepEqual(facts('reference', { saveCard: true }), { use: 'subsequent', initiator: 'merchant', reason: 'unscheduled', networkTransactionId: 'NTI1' });
  });

  it('send a kept card whose first network transaction id is unknown as its initial use', () => {
    const unknown = (source: CardSourceKind, scheduleRun = false) => credentialOnFileOf({ source, saveCard: false, scheduleRun, networkTransactionId: null });
    assert.deepEqual(unknown('method'), { use: 'initial', initiator: 'customer', reason: 'unscheduled', networkTransactionId: null });
    assert.deepEqual(unknown('method', true), { use: 'initial', initiator: 'merchant', reason: 'recurring', networkTransactionId: null });
    assert.deepEqual(unknown('token'), { use: 'initial', initiator: 'customer', reason: 'unscheduled', networkTransactionId: null });
  });

  it('are kept as text and read back; network ids from connectors are checked', () => {
    const flags = facts('method', { scheduleRun: true });
    assert.deepEqual(parseCredentialOnFile(credentialOnFileText(flags)), flags);
    assert.equal(parseCredentialOnFile('{"use":"sometimes"}'), null);
    assert.equal(parseCredentialOnFile('not json'), null);
    assert.equal(networkTransactionIdOf('123456789012345'), '123456789012345');
    for (const bad of [undefined, '', 'has space', 'x'.repeat(65)]) assert.equal(networkTransactionIdOf(bad), null);
  });
});
