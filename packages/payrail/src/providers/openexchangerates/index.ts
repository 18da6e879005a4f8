// The FX connector `openexchangerates` (behaviour.md section 18): USD-based
// rates from Open Exchange Rates' /latest.json, held in one table per
// process and quoted with each corridor's margin (domain/fx-margin.ts).
//
// The table is fetched when the connector is made (a provider that is down
// then does not stop the start: checks are refused until a fetch succeeds),
// again every refresh interval while rates are asked (a process that never
// quotes, such as a CLI command or a worker thread, spends no more of the
// plan's monthly quota), and on demand when a rate is asked and the table
// is missing, due or too old. One fetch is in flight at a time; callers
// arriving meanwhile wait for it, each until its own deadline. A failed
// fetch keeps the table held; on demand, the provider is asked at most once
// per PAUSE_AFTER_FETCH_MS.
//
// A rate is quoted only from a table whose `timestamp` (when the provider
// published it) is at most maxAgeSeconds old. An older table, or one
// without the corridor's currency, refuses the check with RateUnavailable,
// whose message the caller sees (service_unavailable): an old rate is never
// quoted. Those refusals do not count against the circuit breaker (the
// connector answered from what it holds; the fetch failures behind them
// are paced above), so the caller always reads why.
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock.ts';
import type { Corridor } from '../../domain/corridors.ts';
import { quotedRate } from '../../domain/fx-margin.ts';
import { untilAborted } from '../deadline.ts';
import { RateUnavailable, type FxProvider } from '../fx.ts';
import { fetchLatest, OxrCallFailed } from './client.ts';
import { FETCH_TIMEOUT_MS_DEFAULT, PAUSE_AFTER_FETCH_MS, CONNECTOR_NAME, type OpenExchangeRatesSettings } from './settings.ts';
import { readTable, TableUnusable, type RateTable } from './table.ts';

export { CONNECTOR_NAME, type OpenExchangeRatesSettings } from './settings.ts';

/** A refusal to quote from the table held: shown to the caller, not a sign the provider is down. */
export class OxrRateUnavailable extends RateUnavailable {
  readonly countsAgainstBreaker = false;
}

export interface OpenExchangeRatesOptions {
  readonly log: Logger;
  readonly clock: Clock;
  /** The currencies the corridors pay out in: the only ones asked for. */
  readonly currencies: readonly string[];
}

export interface OpenExchangeRatesConnector extends FxProvider {
  readonly name: string;
  /** Fetches the table now (or joins the fetch in flight); never throws: a failure is logged and kept for the answers. */
  refresh(): Promise<void>;
  /** Stops the schedule and aborts a fetch in flight. */
  stop(): void;
}

export function createOpenExchangeRates(settings: OpenExchangeRatesSettings, options: OpenExchangeRatesOptions): OpenExchangeRatesConnector {
  const connector = new OpenExchangeRates(settings, options);
  connector.start();
  return connector;
}

class OpenExchangeRates implements OpenExchangeRatesConnector {
  readonly name = CONNECTOR_NAME;
  private readonly currencies: readonly string[];
  private readonly refreshMs: number;
  private readonly maxAgeMs: number;
  private readonly stopping = new AbortController();
  private table: RateTable | null = null;
  /** When the table held was fetched (the clock's time). */
  private fetchedAtMs = 0;
  /** Why the last fetch failed, or null after a success. */
  private failure: string | null = null;
  /** When the last fetch ended (the clock's time), or null before the first. */
  private lastFetchEndMs: number | null = null;
  private inFlight: Promise<void> | null = null;
  /** Whether a rate was asked since the last fetch: the schedule fetches only for a process that quotes. */
  private asked = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly settings: OpenExchangeRatesSettings,
    private readonly options: OpenExchangeRatesOptions,
  ) {
    this.currencies = [...new Set(options.currencies)].sort();
    this.refreshMs = settings.refreshSeconds * 1000;
    this.maxAgeMs = settings.maxAgeSeconds * 1000;
  }

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => {
      if (this.asked) void this.refresh();
    }, this.refreshMs);
    // The schedule never keeps a process alive on its own.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.stopping.abort(new Error('the connector stopped'));
  }

  refresh(): Promise<void> {
    this.inFlight ??= this.fetchTable().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  async rate(corridor: Corridor, signal?: AbortSignal): Promise<string> {
    this.asked = true;
    if (this.needsFetch()) {
      const fetching = this.refresh();
      await (signal === undefined ? fetching : untilAborted(fetching, signal));
    }
    return quotedRate(this.providerRate(corridor.currency), corridor.fxMarginPercent);
  }

  /**
   * Whether a rate asked now waits for a fetch: when the table held is
   * missing or too old (joining a fetch in flight too), or due for its
   * refresh. Never for a fetch in flight while the table held may still be
   * quoted, and never within PAUSE_AFTER_FETCH_MS of the last fetch's end:
   * a provider that fails, or keeps answering a table too old, is asked
   * twice a minute, not once per request.
   */
  private needsFetch(): boolean {
    const nowMs = this.options.clock.nowMs();
    const usable = this.table !== null && nowMs - this.table.publishedAtMs <= this.maxAgeMs;
    if (this.inFlight !== null) return !usable;
    if (this.lastFetchEndMs !== null && nowMs - this.lastFetchEndMs < PAUSE_AFTER_FETCH_MS) return false;
    return !usable || nowMs - this.fetchedAtMs >= this.refreshMs;
  }

  /** The provider's rate for `currency` from the table held, or the refusal the caller reads. */
  private providerRate(currency: string): string {
    const table = this.table;
    if (table === null) {
      // Nothing was ever fetched: the provider is unreachable or refuses the App ID. An ordinary error: it counts against the breaker.
      throw new Error(`openexchangerates: no rate table yet (${this.failure ?? 'the first fetch has not ended'})`);
    }
    const ageMs = this.options.clock.nowMs() - table.publishedAtMs;
    if (ageMs > this.maxAgeMs) {
      throw new OxrRateUnavailable(
        `no current ${currency} rate: the newest is from ${new Date(table.publishedAtMs).toISOString()} (older than ${describeSeconds(this.settings.maxAgeSeconds)})`,
      );
    }
    const rate = table.rates.get(currency);
    if (rate === undefined) {
      throw new OxrRateUnavailable(`no current ${currency} rate: the rate provider's table of ${new Date(table.publishedAtMs).toISOString()} has none`);
    }
    return rate;
  }

  private async fetchTable(): Promise<void> {
    try {
      await this.fetchOnce();
    } finally {
      this.lastFetchEndMs = this.options.clock.nowMs();
    }
  }

  private async fetchOnce(): Promise<void> {
    const timeout = AbortSignal.timeout(this.settings.fetchTimeoutMs ?? FETCH_TIMEOUT_MS_DEFAULT);
    const signal = AbortSignal.any([timeout, this.stopping.signal]);
    const log = this.options.log;
    try {
      const table = readTable(await fetchLatest(this.settings, this.currencies, signal), this.currencies, this.options.clock.nowMs());
      // An answer older than the one held (a lagging replica, a cache) does not replace it.
      if (this.table === null || table.publishedAtMs >= this.table.publishedAtMs) this.table = table;
      this.fetchedAtMs = this.options.clock.nowMs();
      this.failure = null;
      this.asked = false;
      for (const [currency, why] of table.refused) log.warn({ connector: CONNECTOR_NAME, currency }, `openexchangerates: no usable ${currency} rate: ${why}`);
      log.debug(
        { connector: CONNECTOR_NAME, published_at: new Date(table.publishedAtMs).toISOString(), currencies: table.rates.size },
        'openexchangerates: rates fetched',
      );
    } catch (error) {
      const reason =
        error instanceof OxrCallFailed || error instanceof TableUnusable ? error.message : `unexpected ${error instanceof Error ? error.name : 'error'}`;
      this.failure = reason;
      log.warn(
        {
          connector: CONNECTOR_NAME,
          reason,
          ...(error instanceof OxrCallFailed && error.code !== null ? { provider_error: error.code } : {}),
          held_table_published_at: this.table === null ? null : new Date(this.table.publishedAtMs).toISOString(),
        },
        'openexchangerates: fetching the rates failed; the table held (if any) is kept until it is too old',
      );
    }
  }
}

/** A duration in words for the refusal message: "3 hours", "90 minutes", "45 seconds". */
function describeSeconds(seconds: number): string {
  const [count, unit] = seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : seconds % 60 === 0 ? [seconds / 60, 'minute'] : [seconds, 'second'];
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}
