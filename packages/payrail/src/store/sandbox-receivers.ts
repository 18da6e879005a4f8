// Sandbox receivers whose state changed (KYC completed, invitation accepted).
// The simulators reach these rows only through the ReceiverStates port the
// runtime builds from these functions, so every process on one store agrees.
import type { Db, Tx } from './db.ts';

export interface SandboxReceiverRow {
  readonly registered: boolean;
  readonly kycVerified: boolean;
  readonly moneyLimitCents: number;
}

export async function readSandboxReceiver(tx: Tx, phoneE164: string): Promise<SandboxReceiverRow | null> {
  const row = await tx.get<{ registered: number; kyc_verified: number; money_limit_cents: number }>(
    'SELECT registered, kyc_verified, money_limit_cents FROM sandbox_receivers WHERE phone = ?',
    [phoneE164],
  );
  if (row === undefined) return null;
  return { registered: Number(row.registered) === 1, kycVerified: Number(row.kyc_verified) === 1, moneyLimitCents: Number(row.money_limit_cents) };
}

export async function saveVerifiedSandboxReceiver(tx: Tx, phoneE164: string, moneyLimitCents: number, nowMs: number): Promise<void> {
  await tx.run(
    `INSERT INTO sandbox_receivers (phone, registered, kyc_verified, money_limit_cents, updated_at_ms) VALUES (?, 1, 1, ?, ?)
     ON CONFLICT (phone) DO UPDATE SET registered = 1, kyc_verified = 1, money_limit_cents = excluded.money_limit_cents, updated_at_ms = excluded.updated_at_ms`,
    [phoneE164, moneyLimitCents, nowMs],
  );
}

/** The simulators' view of these rows: each call its own transaction. */
export function sandboxReceiverStates(db: Db): {
  read(phoneE164: string): Promise<SandboxReceiverRow | null>;
  saveVerified(phoneE164: string, moneyLimitCents: number, nowMs: number): Promise<void>;
} {
  return {
    read: (phoneE164) => db.read((tx) => readSandboxReceiver(tx, phoneE164)),
    saveVerified: (phoneE164, moneyLimitCents, nowMs) => db.write((tx) => saveVerifiedSandboxReceiver(tx, phoneE164, moneyLimitCents, nowMs)),
  };
}
