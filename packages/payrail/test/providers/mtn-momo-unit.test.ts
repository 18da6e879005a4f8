// The MTN MoMo connector's own rules, without a server: corridor settings,
// amounts as MoMo's decimal text, reasons in Payrail's terms, answers and
// callbacks parsed, the token's lifetime, and its configuration
// (PAYRAIL_MTN_MOMO_*, chosen by PAYRAIL_PAYOUT_NETWORK or a corridor).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { inspect } from 'node:util';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { secretsBoxedFromThread, secretsUnboxedForThread } from '../../src/config/thread-clone.ts';
import { isBuiltInConnector } from '../../src/domain/connector-spec.ts';
import { hintsOfCallback } from '../../src/providers/mtn-momo/callbacks.ts';
import { amountDecimalsOf, amountText, corridorProblems, currencyOf, msisdnOf } from '../../src/providers/mtn-momo/corridor.ts';
import { callbackUrlOf } from '../../src/providers/mtn-momo/index.ts';
import { transferBody } from '../../src/providers/mtn-momo/operations.ts';
import { failureOf } from '../../src/providers/mtn-momo/reasons.ts';
import { tokenUseMs } from '../../src/providers/mtn-momo/token.ts';
import { balanceOf, errorOf, transferResultOf } from '../../src/providers/mtn-momo/wire.ts';
import { tempDir } from '../helpers/stores.ts';
import { sandboxCorridor, submission } from './mtn-momo/fixtures.ts';

describe('corridor payout_settings', () => {
  test('a sandbox corridor with target environment and currency has no problem', () => {
    assert.deepEqual(corridorProblems(sandboxCorridor()), []);
    assert.deepEqual(corridorProblems(sandboxCorridor({ target_environment: 'mtnuganda' })), []);
  });

  test('the target environment is required and must be a lower-case word; the currency three letters', () => {
    assert.match(corridorProblems(sandboxCorridor({ currency: 'EUR' })).join('\n'), /target_environment is required/);
    assert.match(corridorProblems(sandboxCorridor({ target_environment: 'MTN Uganda' })).join('\n'), /lower-case word/);
    assert.match(corridorProblems(sandboxCorridor({ target_environment: 'sandbox', currency: 'euro' })).join('\n'), /three-letter ISO 4217/);
  });

  test("amount_decimals is a digit no larger than the currency's minor units; unknown keys are named", () => {
    const kes = (settings: Record<string, string>) => sandboxCorridor(settings, { currency: 'KES', currencyMinorUnits: 2 });
    assert.deepEqual(corridorProblems(kes({ target_environment: 'sandbox', amount_decimals: '0' })), []);
    assert.match(corridorProblems(kes({ target_environment: 'sandbox', amount_decimals: '3' })).join('\n'), /exceeds the currency's minor units/);
    assert.match(corridorProblems(kes({ target_environment: 'sandbox', amount_decimals: 'two' })).join('\n'), /digit from 0 to 4/);
    assert.match(corridorProblems(kes({ target_environment: 'sandbox', provider: 'MTN_MOMO_UGA' })).join('\n'), /payout_settings.provider is not a setting/);
  });

  test("decimals default to the currency's minor units; the currency to the corridor's", () => {
    assert.equal(amountDecimalsOf(sandboxCorridor()), 0);
    assert.equal(amountDecimalsOf(sandboxCorridor({ target_environment: 'x' }, { currencyMinorUnits: 2 })), 2);
    assert.equal(amountDecimalsOf(sandboxCorridor({ target_environment: 'x', amount_decimals: '0' }, { currencyMinorUnits: 2 })), 0);
    assert.equal(currencyOf(sandboxCorridor()), 'EUR');
    assert.equal(currencyOf(sandboxCorridor({ target_environment: 'mtnuganda' })), 'UGX');
  });
});

describe('amounts and numbers on the wire', () => {
  test("minor units become MoMo's decimal text with the accepted decimals", () => {
    assert.equal(amountText(37_000, 0, 0), '37000');
    assert.equal(amountText(150_000, 2, 0), '1500');
    assert.equal(amountText(150_050, 2, 2), '1500.50');
    assert.equal(amountText(5, 2, 2), '0.05');
    assert.equal(amountText(1_234_500, 3, 2), '1234.50');
  });

  test('an amount not rounded to the accepted decimals, or not positive, is refused before sending', () => {
    assert.throws(() => amountText(150_050, 2, 0), /not rounded to 0 decimals/);
    assert.throws(() => amountText(0, 0, 0), /positive integer/);
    assert.throws(() => amountText(1.5, 0, 0), /positive integer/);
  });

  test('an E.164 number becomes its digits', () => {
    assert.equal(msisdnOf('+256772123456'), '256772123456');
    assert.throws(() => msisdnOf('0772123456'), /E.164/);
  });

  test("the transfer body carries Payrail's key as externalId and its own short notes", () => {
    const sent = submission('46733123453', { transferId: '77' });
    assert.deepEqual(transferBody(sent), {
      amount: '500',
      currency: 'EUR',
      externalId: sent.idempotencyKey,
      payee: { partyIdType: 'MSISDN', partyId: '46733123453' },
      payerMessage: 'Payrail transfer 77',
      payeeNote: 'Payrail transfer 77',
    });
  });
});

describe('MoMo answers', () => {
  test('a transfer status is read with its id as text or number and its reason as a code or {code}', () => {
    assert.deepEqual(transferResultOf({ status: 'SUCCESSFUL', financialTransactionId: 363440463, externalId: 'abc' }), {
      status: 'SUCCESSFUL',
      financialTransactionId: '363440463',
      reason: null,
      externalId: 'abc',
    });
    assert.equal(transferResultOf({ status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' })?.reason, 'NOT_ENOUGH_FUNDS');
    assert.equal(transferResultOf({ status: 'FAILED', reason: { code: 'PAYEE_NOT_FOUND', message: 'x' } })?.reason, 'PAYEE_NOT_FOUND');
    assert.equal(transferResultOf({ status: 'DONE' }), null);
    assert.equal(transferResultOf([]), null);
  });

  test('error bodies and balances are read only when well formed', () => {
    assert.deepEqual(errorOf({ code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id' }), {
      code: 'RESOURCE_ALREADY_EXIST',
      message: 'Duplicated reference id',
    });
    assert.equal(errorOf({ message: 'no code' }), null);
    assert.deepEqual(balanceOf({ availableBalance: '1000.50', currency: 'EUR' }), { availableBalance: '1000.50', currency: 'EUR' });
    assert.equal(balanceOf({ availableBalance: 'lots', currency: 'EUR' }), null);
  });

  test('documented reasons map to provider-error-code and text; an unknown one keeps its code', () => {
    assert.deepEqual(failureOf('PAYEE_NOT_FOUND'), { errorCode: 'PAYEE_NOT_FOUND', errorText: 'The receiver number is not registered for MTN Mobile Money' });
    for (const reason of [
      'NOT_ENOUGH_FUNDS',
      'PAYER_LIMIT_REACHED',
      'PAYEE_NOT_ALLOWED_TO_RECEIVE',
      'APPROVAL_REJECTED',
      'EXPIRED',
      'TRANSACTION_CANCELED',
      'INTERNAL_PROCESSING_ERROR',
      'SERVICE_UNAVAILABLE',
    ]) {
      const failure = failureOf(reason);
      assert.equal(failure.errorCode, reason);
      assert.doesNotMatch(failure.errorText, /reported the payment failed \(/, reason);
    }
    assert.deepEqual(failureOf('SOMETHING_NEW'), { errorCode: 'SOMETHING_NEW', errorText: 'MTN Mobile Money reported the payment failed (SOMETHING_NEW)' });
    assert.equal(failureOf(null).errorCode, 'FAILED');
  });

  test('a token is used until 10 minutes before a 60-minute expiry, 5/6 of a short one, and at least 10 s', () => {
    assert.equal(tokenUseMs(3600), 50 * 60_000);
    assert.equal(tokenUseMs(600), 500_000);
    assert.equal(tokenUseMs(0), 10_000);
  });
});

describe('callbacks', () => {
  const key = 'abcd1234t5';
  test("a transfer result names the payout by Payrail's key (externalId), and by referenceId when carried", () => {
    assert.deepEqual(hintsOfCallback({ status: 'SUCCESSFUL', externalId: key, financialTransactionId: '1' }), [
      { kind: 'payout', providerRef: key, reference: key },
    ]);
    const referenceId = '0f3b7c8e-1d2a-4b5c-8d9e-0a1b2c3d4e5f';
    assert.deepEqual(hintsOfCallback({ status: 'FAILED', referenceId: referenceId.toUpperCase(), externalId: key, reason: 'EXPIRED' }), [
      { kind: 'payout', providerRef: referenceId, reference: key },
    ]);
  });

  test('a result naming no payout of Payrail is accepted with no hint; anything else is refused, never thrown', () => {
    assert.deepEqual(hintsOfCallback({ status: 'SUCCESSFUL', externalId: 'not a payrail key!' }), []);
    assert.equal(hintsOfCallback({ hello: 'world' }), null);
    assert.equal(hintsOfCallback('text'), null);
  });

  test("the callback URL is Payrail's public URL, when MoMo can reach it", () => {
    assert.equal(
      callbackUrlOf('https://pay.example.com/', 'https://sandbox.momodeveloper.mtn.com', 'sandbox'),
      'https://pay.example.com/providers/mtn-momo/callbacks',
    );
    assert.equal(callbackUrlOf('http://127.0.0.1:8080', 'https://sandbox.momodeveloper.mtn.com', 'sandbox'), null);
    assert.equal(callbackUrlOf('http://127.0.0.1:8080', 'http://127.0.0.1:9000', 'sandbox'), 'http://127.0.0.1:8080/providers/mtn-momo/callbacks');
    assert.equal(callbackUrlOf('http://pay.example.com', 'https://proxy.momoapi.mtn.com', 'production'), null);
  });
});

describe('configuration', () => {
  const dir = tempDir();
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const USER = '0f3b7c8e-1d2a-4b5c-8d9e-0a1b2c3d4e5f';
  const MOMO = {
    PAYRAIL_PAYOUT_NETWORK: 'mtn-momo',
    PAYRAIL_MTN_MOMO_SUBSCRIPTION_KEY: 'sub-key-0123456789',
    PAYRAIL_MTN_MOMO_API_USER: USER,
    PAYRAIL_MTN_MOMO_API_KEY: 'api-key-0123456789',
  };
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
  };

  test('mtn-momo is a shipped payout network', () => {
    assert.ok(isBuiltInConnector('payoutNetwork', 'mtn-momo'));
  });

  test('chosen by PAYRAIL_PAYOUT_NETWORK, its settings are read boxed with the sandbox default URL', () => {
    const settings = loadConfig(MOMO).connectors.mtnMomo!;
    assert.equal(settings.url, 'https://sandbox.momodeveloper.mtn.com');
    assert.equal(settings.apiUser, USER);
    assert.equal(settings.subscriptionKey.reveal(), 'sub-key-0123456789');
    assert.equal(settings.apiKey.reveal(), 'api-key-0123456789');
    assert.doesNotMatch(inspect(settings, { depth: 5 }) + JSON.stringify(settings), /sub-key|api-key/);
    assert.equal(loadConfig({}).connectors.mtnMomo, null, 'not read unless chosen');
    // The worker thread of `payrail serve` gets the configuration by structured clone: the keys must arrive boxed.
    const crossed = secretsBoxedFromThread(structuredClone(secretsUnboxedForThread(loadConfig(MOMO)))).connectors.mtnMomo!;
    assert.equal(crossed.apiKey.reveal(), 'api-key-0123456789');
    assert.equal(crossed.subscriptionKey.reveal(), 'sub-key-0123456789');
  });

  test("chosen by a corridor's payout_connector, its settings are read too", () => {
    const file = path.join(dir, 'corridors.json');
    const corridor = {
      service: '256',
      country: 'UG',
      currency: 'UGX',
      currency_minor_units: 0,
      fx_rate: '3700',
      min_amount: '1.00',
      max_amount: '1000.00',
      required_attributes: [],
      payout_connector: 'mtn-momo',
      payout_settings: { target_environment: 'sandbox', currency: 'EUR' },
    };
    fs.writeFileSync(file, JSON.stringify({ corridors: [corridor] }));
    const { PAYRAIL_PAYOUT_NETWORK: _, ...keys } = MOMO;
    assert.equal(loadConfig({ ...keys, PAYRAIL_CORRIDORS_FILE: file }).connectors.mtnMomo?.apiUser, USER);
    assert.match(problemsOf({ PAYRAIL_CORRIDORS_FILE: file }).join('\n'), /PAYRAIL_MTN_MOMO_API_USER .* is required/);
  });

  test('keys may come from files; every problem is listed, naming variables, never a key', () => {
    const keyFile = path.join(dir, 'api-key');
    fs.writeFileSync(keyFile, 'from-a-file\n');
    assert.equal(
      loadConfig({ ...MOMO, PAYRAIL_MTN_MOMO_API_KEY: '', PAYRAIL_MTN_MOMO_API_KEY_FILE: keyFile }).connectors.mtnMomo?.apiKey.reveal(),
      'from-a-file',
    );
    const problems = problemsOf({
      PAYRAIL_PAYOUT_NETWORK: 'mtn-momo',
      PAYRAIL_MTN_MOMO_URL: 'http://momo.example.com',
      PAYRAIL_MTN_MOMO_API_USER: 'not-a-uuid',
      PAYRAIL_MTN_MOMO_API_KEY: 'secret-value-1',
      PAYRAIL_MTN_MOMO_API_KEY_FILE: keyFile,
    }).join('\n');
    assert.match(problems, /PAYRAIL_MTN_MOMO_URL must be an https:\/\/ URL, or http:\/\/ on a loopback address/);
    assert.match(problems, /PAYRAIL_MTN_MOMO_API_USER must be the API user's UUID/);
    assert.match(problems, /PAYRAIL_MTN_MOMO_SUBSCRIPTION_KEY \(or PAYRAIL_MTN_MOMO_SUBSCRIPTION_KEY_FILE/);
    assert.match(problems, /PAYRAIL_MTN_MOMO_API_KEY and PAYRAIL_MTN_MOMO_API_KEY_FILE are both set/);
    assert.doesNotMatch(problems, /secret-value-1|from-a-file/);
  });

  test("a stand-in on loopback is accepted in the sandbox, MTN's live hosts are not; production takes https and refuses MTN's sandbox host", () => {
    assert.equal(loadConfig({ ...MOMO, PAYRAIL_MTN_MOMO_URL: 'http://127.0.0.1:9000' }).connectors.mtnMomo?.url, 'http://127.0.0.1:9000');
    assert.equal(
      loadConfig({ ...MOMO, PAYRAIL_MTN_MOMO_URL: 'https://sandbox.momodeveloper.mtn.com' }).connectors.mtnMomo?.url,
      'https://sandbox.momodeveloper.mtn.com',
    );
    // The sandbox environment refuses MTN's live API hosts: it would pay real wallets.
    for (const live of [
      'https://proxy.momoapi.mtn.com',
      'https://PROXY.momoapi.mtn.com.',
      'https://ericssonbasicapi2.momoapi.mtn.com',
      'https://momoapi.mtn.com',
    ]) {
      assert.match(
        problemsOf({ ...MOMO, PAYRAIL_MTN_MOMO_URL: live }).join('\n'),
        /PAYRAIL_MTN_MOMO_URL names MTN MoMo's live API; the sandbox environment uses its sandbox/,
        live,
      );
    }
    assert.deepEqual(problemsOf({ ...MOMO, PAYRAIL_MTN_MOMO_URL: 'https://momoapi.mtn.com.example.net' }), []);
    const production = {
      PAYRAIL_ENV: 'production',
      PAYRAIL_TRUST_PROXY_TLS: '1',
      PAYRAIL_PUBLIC_URL: 'https://pay.example.com',
      PAYRAIL_CARD_KEY: Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 73 + 11) % 256)).toString('base64'),
      PAYRAIL_CARD_PROCESSOR: './connectors/card.js',
      PAYRAIL_KYC_PROVIDER: './connectors/kyc.js',
      PAYRAIL_FX_PROVIDER: './connectors/fx.js',
      ...MOMO,
    };
    assert.equal(loadConfig(production).connectors.mtnMomo?.url, 'https://proxy.momoapi.mtn.com');
    assert.match(problemsOf({ ...production, PAYRAIL_MTN_MOMO_URL: 'https://sandbox.momodeveloper.mtn.com' }).join('\n'), /names MTN MoMo's sandbox/);
    assert.match(problemsOf({ ...production, PAYRAIL_MTN_MOMO_URL: 'http://127.0.0.1:9000' }).join('\n'), /must be an https:\/\/ URL in production/);
  });
});
