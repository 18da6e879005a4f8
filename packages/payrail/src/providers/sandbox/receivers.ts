// The sandbox receiver catalogue (behaviour.md s.6): the last four digits of
// a receiver's number choose how the simulated network and KYC provider
// treat it. Receivers whose state can change (KYC completed, invitation
// accepted) keep that change in the sandbox_receivers table, so every
// process on the same store sees it.
import type { Db, Tx } from '../../store/db.ts';

export type Scenario = 'kyc_blocked' | 'kyc_limited' | 'unregistered' | 'network_error' | 'slow' | 'flaky' | 'normal';

const SCENARIO_BY_LAST_FOUR: Readonly<Record<string, Scenario>> = {
  '0001': 'kyc_blocked',
  '0002': 'kyc_limited',
  '0003': 'unregistered',
  '0004': 'network_error',
  '0005': 'slow',
  '0006': 'flaky',
};

export interface SandboxReceiver {
  readonly registered: boolean;
  readonly kycVerified: boolean;
  readonly moneyLimitCents: number;
}

/** What a fully verified receiver may receive per transfer. */
export const VERIFIED_LIMIT_CENTS = 300_000;
const VERIFIED: SandboxReceiver = { registered: true, kycVerified: true, moneyLimitCents: VERIFIED_LIMIT_CENTS };

const DEFAULTS: Readonly<Record<Scenario, SandboxReceiver>> = {
  kyc_blocked: { registered: true, kycVerified: false, moneyLimitCents: 0 },
  kyc_limited: { registered: true, kycVerified: false, moneyLimitCents: 10_000 },
  unregistered: { registered: false, kycVerified: false, moneyLimitCents: 0 },
  network_error: VERIFIED,
  slow: VERIFIED,
  flaky: VERIFIED,
  normal: VERIFIED,
};

export function scenarioOf(phoneE164: string): Scenario {
  return SCENARIO_BY_LAST_FOUR[phoneE164.slice(-4)] ?? 'normal';
}

/** Only these scenarios start below "registered and verified", so only they can change. */
function canChange(scenario: Scenario): boolean {
  return scenario === 'kyc_blocked' || scenario === 'kyc_limited' || scenario === 'unregistered';
}

interface ReceiverRow {
  registered: number;
  kyc_verified: number;
  money_limit_cents: number;
}

async function readRow(tx: Tx, phoneE164: string): Promise<SandboxReceiver | null> {
  const row = await tx.get<ReceiverRow>('SELECT registered, kyc_verified, money_limit_cents FROM sandbox_receivers WHERE phone = ?', [phoneE164]);
  return row === undefined ? null : { registered: row.registered === 1, kycVerified: row.kyc_verified === 1, moneyLimitCents: Number(row.money_limit_cents) };
}

/**
 * The receiver's current sandbox state. Receivers that start verified never
 * change, so the store is read only for the three that can.
 */
export async function readReceiver(db: Db, phoneE164: string): Promise<SandboxReceiver> {
  const scenario = scenarioOf(phoneE164);
  if (!canChange(scenario)) return DEFAULTS[scenario];
  return (await db.read((tx) => readRow(tx, phoneE164))) ?? DEFAULTS[scenario];
}

async function saveVerified(tx: Tx, phoneE164: string, nowMs: number): Promise<void> {
  await tx.run(
    `INSERT INTO sandbox_receivers (phone, registered, kyc_verified, money_limit_cents, updated_at_ms) VALUES (?, 1, 1, ?, ?)
     ON CONFLICT (phone) DO UPDATE SET registered = 1, kyc_verified = 1, money_limit_cents = excluded.money_limit_cents, updated_at_ms = excluded.updated_at_ms`,
    [phoneE164, VERIFIED_LIMIT_CENTS, nowMs],
  );
}

/** Completing verification at kyc_url: a registered receiver becomes verified. */
export async function completeKyc(tx: Tx, phoneE164: string, nowMs: number): Promise<'verified' | 'not_registered'> {
  const scenario = scenarioOf(phoneE164);
  if (!canChange(scenario)) return 'verified';
  const current = (await readRow(tx, phoneE164)) ?? DEFAULTS[scenario];
  if (!current.registered) return 'not_registered';
  await saveVerified(tx, phoneE164, nowMs);
  return 'verified';
}

/**
 * Accepting a payment invitation registers the receiver as verified. For a
 * receiver already on the network it changes nothing.
 */
export async function acceptInvitation(tx: Tx, phoneE164: string, nowMs: number): Promise<'registered' | 'already_registered'> {
  const scenario = scenarioOf(phoneE164);
  if (!canChange(scenario)) return 'already_registered';
  const current = (await readRow(tx, phoneE164)) ?? DEFAULTS[scenario];
  if (current.registered) return 'already_registered';
  await saveVerified(tx, phoneE164, nowMs);
  return 'registered';
}
