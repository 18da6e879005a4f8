// A latest.json answer read into a rate table (docs.openexchangerates.org,
// /latest.json): `{disclaimer, license, timestamp, base, rates}`, where
// `timestamp` is the UNIX time (seconds) the rates were published and
// `rates` maps currency codes to units per 1 `base`. Payrail asks for base
// USD (the default, and the only base of the Free plan) and reads only the
// currencies it asked for; each rate becomes exact decimal text from the
// number as written (json-numbers.ts, rate-text.ts) or a reason it was refused.
import { JsonNumber } from './json-numbers.ts';
import { rateText } from './rate-text.ts';
import { TIMESTAMP_AHEAD_MAX_MS } from './settings.ts';

export interface RateTable {
  /** When the provider published these rates (ms since the epoch): the rates' age is measured from here. */
  readonly publishedAtMs: number;
  /** Exact decimal text per currency asked for and usable. */
  readonly rates: ReadonlyMap<string, string>;
  /** Why a currency asked for has no usable rate: absent from the answer, or its number refused. */
  readonly refused: ReadonlyMap<string, string>;
}

/** An answer that is not a rate table: the provider answered, but nothing in it can be used. */
export class TableUnusable extends Error {
  override readonly name = 'TableUnusable';
}

/**
 * The table in `body` (read by parseJsonKeepingNumbers: numbers are
 * JsonNumber) for `currencies`; throws TableUnusable when the answer is not
 * a USD rate table or is dated more than TIMESTAMP_AHEAD_MAX_MS after `nowMs`.
 */
export function readTable(body: unknown, currencies: readonly string[], nowMs: number): RateTable {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new TableUnusable('the answer is not a JSON object');
  const answer = body as { base?: unknown; timestamp?: unknown; rates?: unknown };
  if (answer.base !== 'USD') throw new TableUnusable(`the answer's base is ${JSON.stringify(String(answer.base).slice(0, 8))}, not USD`);
  const timestamp = answer.timestamp instanceof JsonNumber && /^[1-9][0-9]{0,11}$/.test(answer.timestamp.text) ? Number(answer.timestamp.text) : null;
  if (timestamp === null) throw new TableUnusable('the answer has no UNIX timestamp');
  if (timestamp * 1000 > nowMs + TIMESTAMP_AHEAD_MAX_MS) {
    throw new TableUnusable(
      `the answer's timestamp ${new Date(timestamp * 1000).toISOString()} is more than ${TIMESTAMP_AHEAD_MAX_MS / 60_000} minutes ahead of the clock`,
    );
  }
  const rates = answer.rates;
  if (rates === null || typeof rates !== 'object' || Array.isArray(rates)) throw new TableUnusable('the answer has no rates object');
  const usable = new Map<string, string>();
  const refused = new Map<string, string>();
  for (const currency of currencies) {
    const value = Object.hasOwn(rates, currency) ? (rates as Record<string, unknown>)[currency] : undefined;
    if (value === undefined) {
      refused.set(currency, 'absent from the answer');
      continue;
    }
    if (!(value instanceof JsonNumber)) {
      refused.set(currency, 'refused: not a number');
      continue;
    }
    const converted = rateText(value.text);
    if ('text' in converted) usable.set(currency, converted.text);
    else refused.set(currency, `refused: ${converted.problem}`);
  }
  return { publishedAtMs: timestamp * 1000, rates: usable, refused };
}
