// accept.blue's surcharge endpoints on the payin API and the surcharge a
// card charge adds (docs/acceptblue-compatibility.md): GET /surcharge shows
// the caller's merchant's settings, POST /surcharge what would apply to a
// source, and the charge flow asks cardSurchargeCents for the amount to add.
import { parseStoredId } from '../../domain/payment-source.ts';
import { surchargeCentsOf, type PaymentType, surchargeWire } from '../../domain/surcharge.ts';
import { CARD_REF_PATTERN } from '../../domain/card-refs.ts';
import { ApiError } from '../../errors.ts';
import type { Service } from '../../service.ts';
import { paymentTypeOfSource, surchargeSettingsOf } from '../../store/merchants/surcharges.ts';

type Wire = ReturnType<typeof surchargeWire>;

/** GET /api/v2/surcharge: both payment types, always shown (none reads `{type: "percent", value: 0}`). */
export async function surchargeSettingsWire(service: Pick<Service, 'db'>, merchantId: string): Promise<{ card: Wire; check: Wire }> {
  const settings = await surchargeSettingsOf(service.db, merchantId);
  return { card: surchargeWire(settings.card), check: surchargeWire(settings.check) };
}

export interface SurchargeLookup {
  /** card: a card number or its first digits; tkn: a saved card's card_ref; pm: a payment method id; ref: a reference number. */
  readonly source_type: 'card' | 'tkn' | 'pm' | 'ref';
  /** Without its prefix (`123`, not `pm-123`). */
  readonly source: string;
}

/**
 * POST /api/v2/surcharge: the surcharge that would apply to this source.
 * `bin_type` "C" for every card: Payrail has no BIN table, and reports every
 * card as credit (card_details.bin_details of a transaction says the same).
 */
export async function lookupSurcharge(
  service: Pick<Service, 'db'>,
  merchantId: string,
  lookup: SurchargeLookup,
): Promise<{ surcharge: Wire; bin_type: 'C' | 'D' | null; payment_type: PaymentType }> {
  const paymentType = await paymentTypeOf(service, merchantId, lookup);
  const settings = await surchargeSettingsOf(service.db, merchantId);
  return { surcharge: surchargeWire(settings[paymentType]), bin_type: paymentType === 'card' ? 'C' : null, payment_type: paymentType };
}

async function paymentTypeOf(service: Pick<Service, 'db'>, merchantId: string, lookup: SurchargeLookup): Promise<PaymentType> {
  if (lookup.source_type === 'card') return 'card';
  const unknown = (): never => {
    throw new ApiError('not_found', `source ${lookup.source_type}-${lookup.source} not found`, undefined, 'source');
  };
  // A saved-card token of the merchant (tkn-<card_ref>, flows/payin/raw-card.ts and saved cards).
  if (lookup.source_type === 'tkn') {
    if (!CARD_REF_PATTERN.test(lookup.source)) return unknown();
    return (await paymentTypeOfSource(service.db, { merchantId, source: { kind: 'token', cardRef: lookup.source } })) ?? unknown();
  }
  const id = parseStoredId(lookup.source);
  if (id === null) return unknown();
  const source = lookup.source_type === 'pm' ? ({ kind: 'method', methodPk: id } as const) : ({ kind: 'reference', chargePk: id } as const);
  return (await paymentTypeOfSource(service.db, { merchantId, source })) ?? unknown();
}

/**
 * The surcharge a card charge of `amountCents` adds for this merchant: its
 * card setting applied to the requested amount (a mandatory surcharge: the
 * charge's amount becomes amount + surcharge, as accept.blue describes).
 * One read, kept in memory while the settings are unchanged.
 */
export async function cardSurchargeCents(db: Service['db'], merchantId: string, amountCents: number): Promise<number> {
  return (await cardSurchargeRule(db, merchantId))(amountCents);
}

/** The same, for an amount known only later (a schedule run reads its amount inside its reservation). */
export async function cardSurchargeRule(db: Service['db'], merchantId: string): Promise<(amountCents: number) => number> {
  const settings = await surchargeSettingsOf(db, merchantId);
  return (amountCents) => surchargeCentsOf(settings.card, amountCents);
}

/** The surcharge a check charge of `amountCents` adds for this merchant: its check setting, applied as the card one is. */
export async function checkSurchargeCents(db: Service['db'], merchantId: string, amountCents: number): Promise<number> {
  const settings = await surchargeSettingsOf(db, merchantId);
  return surchargeCentsOf(settings.check, amountCents);
}
