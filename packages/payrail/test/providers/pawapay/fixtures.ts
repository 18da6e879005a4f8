// What the pawaPay tests share: a corridor paid over pawaPay, a submission
// for it, and a connector pointed at a target (the stand-in, or pawaPay's
// real sandbox when PAYRAIL_PAWAPAY_TEST_TOKEN is set).
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Corridor } from '../../../src/domain/corridors.ts';
import { Secret } from '../../../src/domain/secret.ts';
import type { PayoutNetwork, PayoutSubmission } from '../../../src/providers/payout-network.ts';
import { createPawaPay, type PawaPaySettings } from '../../../src/providers/pawapay/index.ts';

export const silentLog = pino({ level: 'silent' });

export function zambiaCorridor(settings: Record<string, string> = { provider: 'MTN_MOMO_ZMB' }): Corridor {
  return {
    service: '260001',
    country: 'ZM',
    currency: 'ZMW',
    currencyMinorUnits: 2,
    fxRate: '26.5',
    minAmountCents: 100,
    maxAmountCents: 100_000,
    requiredAttributes: [],
    payoutConnector: 'pawapay',
    payoutSettings: settings,
    fxMarginPercent: '0',
  };
}

export function submissionFor(receiverPhone: string, overrides: Partial<Omit<PayoutSubmission, 'signal'>> & { signal?: AbortSignal } = {}): PayoutSubmission {
  return {
    idempotencyKey: 'pr1234567890abcdef',
    idempotencyUuid: randomUUID(),
    transferId: '4711',
    corridor: zambiaCorridor(),
    attempt: 1,
    receiverPhone,
    senderPhone: '+15555550100',
    amountCents: 1000,
    currency: 'USD',
    receivedMinor: 26_500,
    attributes: [],
    signal: AbortSignal.timeout(20_000),
    ...overrides,
  };
}

export function connectorAt(url: string, token: string, extra: Partial<PawaPaySettings> = {}): PayoutNetwork {
  return createPawaPay({ url, token: new Secret(token), ...extra }, { log: silentLog });
}

export function pollRequest(providerRef: string, signal: AbortSignal = AbortSignal.timeout(20_000)) {
  return { providerRef, idempotencyKey: 'pr1234567890abcdef', idempotencyUuid: providerRef, corridor: zambiaCorridor(), signal };
}
