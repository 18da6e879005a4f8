// The ACH network connector: what the check flows and the worker need from
// whoever moves money to and from bank accounts (behaviour.md section 17).
// The sandbox network (sandbox/ach-network.ts) and the `authorize-net`
// connector's eCheck side implement the same interface; the flows never know
// which one is plugged in.
//
// Contract every connector must keep:
// - `submit` is idempotent on `reference`, the entry's provider key
//   (domain/provider-keys.ts, at most 20 characters of [0-9a-z]). Payrail
//   calls it again with the same reference when it cannot know whether an
//   earlier call reached the network; the network must then report the first
//   outcome, never debit or credit twice.
// - `voidEntry` is idempotent on the entry's reference: asked again, it
//   reports what the first void did.
// - A thrown error means "outcome unknown"; Payrail asks again later. A
//   definitive refusal is an outcome: `declined` or `failed`.
// - `status` reports where an accepted entry is. Payrail settles an
//   originated debit on its own rule (domain/ach.ts settlesAtMs) unless the
//   network reports it settled or returned first; a network reports a
//   return whenever it learns of one, also after settlement, for as long as
//   `returnWindowMs` says.
// - `signal` fires when Payrail stops waiting; pass it to the HTTP client.
// - Account numbers arrive in Secret boxes; a connector reveals one only to
//   put it on the wire to the network, never into a log or an error.
import type { AccountType, AchDirection, SecCode } from '../domain/ach.ts';
import type { Secret } from '../domain/secret.ts';

export interface AchAccount {
  /** Name on the account. */
  readonly name: string;
  readonly routingNumber: string;
  readonly accountNumber: Secret<string>;
  readonly accountType: AccountType;
}

export interface AchSubmission {
  /** The entry's provider key: the idempotency key at the network. */
  readonly reference: string;
  /** The merchant the entry is for (the sandbox keeps an ACH clock per merchant). */
  readonly merchantId: string;
  readonly direction: AchDirection;
  readonly amountCents: number;
  /** ISO 4217 code of amountCents (USD: ACH moves dollars). */
  readonly currency: string;
  readonly account: AchAccount;
  readonly secCode: SecCode;
  /** A refund's debit: its reference and network reference (absent for a debit and for an unmatched credit). */
  readonly refunds?: { readonly reference: string; readonly networkRef: string } | undefined;
  readonly signal: AbortSignal;
}

export interface AchSubmitResult {
  readonly outcome: 'accepted' | 'declined' | 'failed';
  /** The network's id of the entry; non-empty when accepted. */
  readonly networkRef: string;
  /** Why a declined or failed entry was refused, in the network's words (never the account number). */
  readonly declineMessage: string | null;
}

export interface AchEntryQuery {
  readonly reference: string;
  readonly networkRef: string;
  readonly merchantId: string;
  readonly direction: AchDirection;
  /** The account's last four digits (the sandbox decides returns by them). */
  readonly accountLast4: string;
  /**
   * A void only: when it was first asked, on the merchant's ACH clock. The
   * sandbox decides the void by it, so asking again answers as the first ask
   * did; a real network knows what it did and ignores it.
   */
  readonly firstAskedAtMs?: number | undefined;
  readonly signal: AbortSignal;
}

/** Where an accepted entry is, as the network knows it. */
export type AchEntryReport =
  | { readonly state: 'pending' }
  | { readonly state: 'originated'; readonly originatedAtMs: number }
  | { readonly state: 'settled'; readonly originatedAtMs: number; readonly settledAtMs: number }
  | {
      readonly state: 'returned';
      readonly returnedAtMs: number;
      /** NACHA code (R01...) as the network reports it. */
      readonly returnCode: string;
      /** The network's text for it, or null (Payrail then names the code: domain/ach.ts). */
      readonly returnReason: string | null;
    }
  | { readonly state: 'voided' };

export interface AchVoidResult {
  /** `too_late`: the entry was originated; it can only be refunded once settled. */
  readonly outcome: 'voided' | 'too_late';
}

export interface AchNetwork {
  readonly name: string;
  /** A shorter deadline for this network's calls than ACH_NETWORK_TIMEOUT_MS; never longer. */
  readonly callTimeoutMs?: number;
  /** How long after settlement the network may still report a return: Payrail keeps asking that long. */
  readonly returnWatchMs: number;
  /** How long after its first send a re-send of a reference is still recognised as the same entry (absent: for ever). */
  readonly resendWindowMs?: number;
  submit(submission: AchSubmission): Promise<AchSubmitResult>;
  voidEntry(query: AchEntryQuery): Promise<AchVoidResult>;
  status(query: AchEntryQuery): Promise<AchEntryReport>;
}

/** Payrail stops waiting for an ACH network call after this long; the outcome then counts as unknown. */
export const ACH_NETWORK_TIMEOUT_MS = 15_000;

export function achCallTimeoutMs(network: AchNetwork): number {
  return Math.min(network.callTimeoutMs ?? ACH_NETWORK_TIMEOUT_MS, ACH_NETWORK_TIMEOUT_MS);
}

/** Refuses a connector object missing what the flows call, at start, not at the first check. */
export function checkAchNetwork(network: AchNetwork): AchNetwork {
  for (const method of ['submit', 'voidEntry', 'status'] as const) {
    if (typeof network[method] !== 'function') throw new Error(`ACH network connector ${String(network.name)} lacks ${method}()`);
  }
  if (typeof network.name !== 'string' || network.name === '') throw new Error('ACH network connector has no name');
  if (!Number.isSafeInteger(network.returnWatchMs) || network.returnWatchMs < 0) throw new Error(`ACH network connector ${network.name} has no returnWatchMs`);
  return network;
}
