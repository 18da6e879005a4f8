// Corridors and submissions for the MTN MoMo tests: a Ugandan corridor paid
// in MTN's sandbox (target environment "sandbox", currency EUR), and fresh
// keys per payout, unique across runs (the real sandbox keeps references).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Corridor } from '../../../src/domain/corridors.ts';
import type { PayoutPollRequest, PayoutSubmission } from '../../../src/providers/payout-network.ts';

export function sandboxCorridor(
  settings: Record<string, string> = { target_environment: 'sandbox', currency: 'EUR' },
  overrides: Partial<Corridor> = {},
): Corridor {
  return {
    service: '256',
    country: 'UG',
    currency: 'UGX',
    currencyMinorUnits: 0,
    fxRate: '3700',
    minAmountCents: 100,
    maxAmountCents: 100_000,
    requiredAttributes: [],
    payoutConnector: 'mtn-momo',
    payoutSettings: settings,
    fxMarginPercent: '0',
    ...overrides,
  };
}

/** A provider key shaped like Payrail's: 20 characters of [0-9a-z]. */
export function providerKey(): string {
  return `t${Date.now().toString(36)}${randomBytes(6).toString('hex')}`.slice(0, 20);
}

export function submission(msisdn: string, overrides: Partial<PayoutSubmission> = {}): PayoutSubmission {
  return {
    idempotencyKey: providerKey(),
    idempotencyUuid: randomUUID(),
    transferId: '1001',
    corridor: sandboxCorridor(),
    attempt: 1,
    receiverPhone: `+${msisdn}`,
    senderPhone: '+14155550100',
    amountCents: 1000,
    currency: 'USD',
    // Small: MTN's sandbox account has limits like a real one.
    receivedMinor: 500,
    attributes: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

export function pollRequest(sent: PayoutSubmission, providerRef = sent.idempotencyUuid): PayoutPollRequest {
  return {
    providerRef,
    idempotencyKey: sent.idempotencyKey,
    idempotencyUuid: sent.idempotencyUuid,
    corridor: sent.corridor,
    signal: new AbortController().signal,
  };
}
