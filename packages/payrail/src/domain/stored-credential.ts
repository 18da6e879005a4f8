// The card networks' credential-on-file flags of a card authorization
// (providers/card-processor.ts StoredCredential), decided in one place from
// where the charge's card comes from. Card networks require them when a card
// is kept for later use or a kept card is used, and a later use names the
// network transaction id of the first one, which Payrail records from
// approved answers (migration 023).
//
//   card source                      use         initiator  reason       network id sent
//   nonce (a card sent as such)      -           -          -            - (a one-off card: no flags)
//   nonce with save_card             initial     customer   unscheduled  none
//   pm- from the API, tkn-           subsequent  customer   unscheduled  the method's (token's) first
//   pm- of a schedule run            subsequent  merchant   recurring    the method's first
//   ref- (an earlier transaction's)  subsequent  merchant   unscheduled  the referenced transaction's
//
// A kept card (pm-, tkn-) whose first network transaction id is unknown (saved
// without an authorization, or before Payrail kept ids) is sent as `initial`:
// networks expect a later use to name an initial one on record, and the
// first approved use's id is then recorded on the card (flows record it).
//
// A verification with save_card keeps the card as a nonce charge with
// save_card does, and is flagged the same.

/** Where a charge's card comes from (domain/payment-source.ts kinds, and a schedule's runs). */
export type CardSourceKind = 'nonce' | 'method' | 'reference' | 'token';

/** The flags, in the shape of providers/card-processor.ts StoredCredential. */
export interface CredentialOnFile {
  readonly use: 'initial' | 'subsequent';
  readonly initiator: 'customer' | 'merchant';
  readonly reason: 'recurring' | 'unscheduled';
  readonly networkTransactionId: string | null;
}

export interface CredentialFacts {
  readonly source: CardSourceKind;
  /** The request asks to keep the card (save_card). */
  readonly saveCard: boolean;
  /** A schedule's run (always of a `pm-` source). */
  readonly scheduleRun: boolean;
  /** The network transaction id of the kept card's first authorization, when recorded. */
  readonly networkTransactionId: string | null;
}

/** The flags of a charge or verification, or null for a one-off card (nothing kept, nothing used). */
export function credentialOnFileOf(facts: CredentialFacts): CredentialOnFile | null {
  const networkTransactionId = facts.networkTransactionId;
  switch (facts.source) {
    case 'nonce':
      return facts.saveCard ? { use: 'initial', initiator: 'customer', reason: 'unscheduled', networkTransactionId: null } : null;
    case 'method':
      return facts.scheduleRun
        ? { use: keptCardUse(networkTransactionId), initiator: 'merchant', reason: 'recurring', networkTransactionId }
        : { use: keptCardUse(networkTransactionId), initiator: 'customer', reason: 'unscheduled', networkTransactionId };
    case 'token':
      return { use: keptCardUse(networkTransactionId), initiator: 'customer', reason: 'unscheduled', networkTransactionId };
    case 'reference':
      return { use: 'subsequent', initiator: 'merchant', reason: 'unscheduled', networkTransactionId };
  }
}

/** A kept card's use: its first on record while no network transaction id of it is known. */
function keptCardUse(networkTransactionId: string | null): CredentialOnFile['use'] {
  return networkTransactionId === null ? 'initial' : 'subsequent';
}

/** Longest network transaction id kept (Visa's are 15 digits, Mastercard's about 13 characters; Authorize.net allows 255). */
export const NETWORK_TRANSACTION_ID_MAX_CHARS = 64;
const NETWORK_TRANSACTION_ID_PATTERN = /^[0-9A-Za-z._:-]{1,64}$/;

/** A connector's network transaction id as Payrail keeps it, or null when it gave none or one that is not plausible. */
export function networkTransactionIdOf(value: string | undefined): string | null {
  return value !== undefined && NETWORK_TRANSACTION_ID_PATTERN.test(value) ? value : null;
}

/** The flags as a charge row keeps them (JSON text; null: none), so a recovery sends them again unchanged. */
export function credentialOnFileText(flags: CredentialOnFile | null): string | null {
  return flags === null ? null : JSON.stringify(flags);
}

/** Reads credentialOnFileText's text back; null for none or text it did not write. */
export function parseCredentialOnFile(text: string | null): CredentialOnFile | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<CredentialOnFile>;
    const use = value.use === 'initial' || value.use === 'subsequent' ? value.use : null;
    const initiator = value.initiator === 'customer' || value.initiator === 'merchant' ? value.initiator : null;
    const reason = value.reason === 'recurring' || value.reason === 'unscheduled' ? value.reason : null;
    if (use === null || initiator === null || reason === null) return null;
    const id = typeof value.networkTransactionId === 'string' ? networkTransactionIdOf(value.networkTransactionId) : null;
    return { use, initiator, reason, networkTransactionId: id };
  } catch {
    return null;
  }
}
