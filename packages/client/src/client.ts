// The Payrail client: one method per API operation, plus send() (the
// recommended transfer sequence) and waitForFinal() (the recommended polling).
// Methods take and return the SDK's types; wire details stay in transport.ts,
// normalize.ts and wire.ts.
import { CLIENT_ERROR_CODES, PayrailError, aboutTransfer, fromAnswer, inputError, isPayrailError } from './errors.ts';
import { amountCentsOf, formatCents } from './money.ts';
import {
  attributeArray,
  notFoundStatus,
  readBalance,
  readCharge,
  readCheck,
  readKyc,
  readNonce,
  readPaymentResponse,
  readStatus,
  readTransferPage,
  unregisteredKyc,
} from './normalize.ts';
import { OPERATIONS, type OperationId, type Route, route } from './operations.ts';
import { cleanPhone, kycDigits } from './phone.ts';
import { MAX_RETRIES_LIMIT, Transport, realSleep, type Answer, type Call, type FetchLike, type Sleep } from './transport.ts';
import type {
  Balance,
  CardInput,
  Charge,
  ChargeInput,
  CheckResult,
  ExecuteResult,
  KycResult,
  Nonce,
  PayrailOptions,
  SendOptions,
  SendResult,
  TransferInput,
  TransferListOptions,
  TransferPage,
  TransferStatus,
  WaitOptions,
} from './types.ts';
import type { Attribute, ChargeRequestWire, TransferRequestWire } from './wire.ts';
import {
  type AdjustOptions,
  type Batch,
  type CreditInput,
  creditBody,
  type OperationOptions,
  payinQuery,
  operationBody,
  readBatch,
  readBatchList,
  readTransaction,
  readTransactionList,
  referenceNumber,
  type Transaction,
  type BatchFilters,
  type TransactionFilters,
} from './lifecycle.ts';
import type { SourceSurcharge, SurchargeLookup, SurchargeSettings } from './surcharge.ts';
import {
  type AchAdvance,
  achAdvanceBody,
  type CheckChargeInput,
  checkChangesBody,
  checkChargeBody,
  type CheckCreditInput,
  checkCreditBody,
  type CheckPaymentMethod,
  type CheckPaymentMethodChanges,
  readAchAdvance,
  readCheckPaymentMethod,
  type SaveCheckInput,
  saveCheckBody,
} from './checks.ts';
import {
  type Customer,
  type CustomerFilters,
  type CustomerFromTransactionInput,
  type CustomerInput,
  defined,
  listOf,
  type PaymentMethod,
  type PaymentMethodChanges,
  readCustomer,
  readPaymentMethod,
  readSchedule,
  type SaveCardInput,
  type Schedule,
  type ScheduleChanges,
  type ScheduleInput,
  scheduleBody,
  type StoredPage,
  storedId,
} from './stored.ts';
import { readSavedCard, readSavedCardExpiry, type SavedCard, type SavedCardChanges, type SavedCardExpiry, type SavedCardInput } from './saved-cards.ts';
import {
  endpointId,
  type EventFilters,
  type EventPage,
  type EventResent,
  eventId,
  eventQuery,
  type PayrailEvent,
  type AcceptBlueWebhook,
  type AcceptBlueWebhookChanges,
  type AcceptBlueWebhookInput,
  acceptBlueWebhookId,
  type ListedWebhook,
  type WebhookEndpoint,
  type WebhookEndpointChanges,
  type WebhookEndpointInput,
  type WebhookEndpointWithSecret,
} from './webhooks.ts';

/** Polling follows the specification's guidance: near 1 s, growing x1.5, capped at 10 s. */
export const POLL_FIRST_INTERVAL_MS = 1000;
export const POLL_INTERVAL_FACTOR = 1.5;
export const POLL_INTERVAL_MAX_MS = 10_000;
export const WAIT_TIMEOUT_DEFAULT_MS = 300_000;
/** An invitation lives 6 hours; no wait needs to be longer than a day. */
export const WAIT_TIMEOUT_MAX_MS = 86_400_000;
/** A hard bound on polls, whatever the clock does. */
export const POLLS_MAX = 10_000;

export const TIMEOUT_DEFAULT_MS = 30_000;
export const MAX_RETRIES_DEFAULT = 2;
export const RETRY_DELAY_DEFAULT_MS = 500;
export const RETRY_DELAY_MAX_MS = 5_000;

/** The transfer list's page size bounds (docs/api-decisions.md section 12). */
export const LIST_LIMIT_MAX = 100;
const LISTED_STATES: ReadonlySet<number> = new Set([0, 40, 60, 80]);
/** One list() walks at most this many pages (ten million transfers at 100 a page), whatever the server says. */
const LIST_PAGES_MAX = 100_000;

/** Payrail accepts transfer ids of up to 40 digits. */
const TRANSFER_ID_PATTERN = /^[0-9]{1,40}$/;
const REFERENCE_PATTERN = /^[0-9]{1,20}$/;
/** The operation of each lifecycle POST that operation() sends. */
const LIFECYCLE_OPERATIONS = {
  capture: 'captureTransaction',
  void: 'voidTransaction',
  refund: 'refundTransaction',
  reversal: 'reverseTransaction',
  adjust: 'adjustTransaction',
  adjustCapture: 'adjustCaptureTransaction',
} as const satisfies Record<string, OperationId>;

/** A production tokenization token; see tokenize(). */
const LIVE_PREFIX = 'live_';

export class Payrail {
  private readonly transport: Transport;
  private readonly transferBase: string;
  private readonly payinBase: string;
  private readonly sleep: Sleep;
  private readonly nowMs: () => number;
  private readonly makeIdempotencyKey: () => string;

  constructor(private readonly options: PayrailOptions) {
    if (typeof options?.base_url !== 'string' || !/^https?:\/\//.test(options.base_url)) {
      throw inputError('invalid_request', 'base_url must be an http:// or https:// URL');
    }
    const maxRetries = options.max_retries ?? MAX_RETRIES_DEFAULT;
    if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_RETRIES_LIMIT) {
      throw inputError('invalid_request', `max_retries must be an integer from 0 to ${MAX_RETRIES_LIMIT}`);
    }
    if (options.fetch === undefined && typeof globalThis.fetch !== 'function') {
      throw inputError('invalid_request', 'no global fetch in this runtime; pass options.fetch');
    }
    // Looked up at call time, so a fetch replaced after construction (test mocks) is used.
    const fetchImpl: FetchLike = options.fetch ?? ((url, init) => (globalThis.fetch as unknown as FetchLike)(url, init));
    this.transferBase = options.base_url.replace(/\/+$/, '');
    this.payinBase = (options.payin?.base_url ?? options.base_url).replace(/\/+$/, '');
    this.sleep = options.sleep ?? realSleep;
    this.nowMs = options.now_ms ?? Date.now;
    this.makeIdempotencyKey = options.idempotency_key ?? (() => globalThis.crypto.randomUUID());
    this.transport = new Transport({
      fetch: fetchImpl,
      timeout_ms: options.timeout_ms ?? TIMEOUT_DEFAULT_MS,
      sleep: this.sleep,
      retry: { max_retries: maxRetries, retry_delay_ms: options.retry_delay_ms ?? RETRY_DELAY_DEFAULT_MS, retry_delay_max_ms: RETRY_DELAY_MAX_MS },
    });
  }

  /** A fresh digits-only transfer id: the time in ms followed by 6 random digits. */
  static newTransferId(): string {
    const random = globalThis.crypto.getRandomValues(new Uint32Array(1))[0]! % 1_000_000;
    return `${Date.now()}${String(random).padStart(6, '0')}`;
  }

  // ---- Transfer API -----------------------------------------------------

  /** GET /api/agent_balance: balance and overdraft in cents. */
  async balance(): Promise<Balance> {
    return this.transfer(route(OPERATIONS.getBalance), readBalance);
  }

  /**
   * GET /api/kyc/:account: the receiver's verification and per-transfer
   * limit. `phone` may be in any accepted form; a national number needs
   * `country`. A receiver new to the network (account_not_found) gives
   * `registered: false` rather than an error.
   */
  async kyc(phone: string, options: { country?: string } = {}): Promise<KycResult> {
    const account = kycDigits(phone, options.country);
    try {
      return await this.transfer(route(OPERATIONS.getReceiverKyc, { account }), (body) => readKyc(account, body));
    } catch (error) {
      if (isPayrailError(error) && error.code === 'account_not_found') return unregisteredKyc(account);
      throw error;
    }
  }

  /** POST /api/checkTransfer: validates the transfer and quotes the rate; no money moves. */
  async check(transfer: TransferInput): Promise<CheckResult> {
    return this.transfer(route(OPERATIONS.checkTransfer), readCheck, transferBody(transfer));
  }

  /**
   * POST /api/transfer: debits the balance and starts the transfer. Retried
   * after a network error or internal_server_error; when a retry is refused
   * (duplicate_transfer, or funds already taken by the first attempt), the
   * transfer is read back through status() instead: it is never sent twice.
   */
  async execute(transfer: TransferInput): Promise<ExecuteResult> {
    const body = transferBody(transfer);
    const call = this.transferCall(route(OPERATIONS.executeTransfer), body);
    let retried = false;
    try {
      return await this.transport.retrying(async (attempt) => {
        retried = attempt > 0;
        return { ...readAnswer(await this.transport.once(call, attempt), readPaymentResponse), resolved_by_status: false };
      });
    } catch (error) {
      // Only after a retry can a refusal mean "your earlier attempt landed".
      if (retried && isPayrailError(error) && error.status >= 400 && error.status < 500 && error.code !== 'authentication_error') {
        const status = await this.status(body.id);
        if (status.outcome !== 'not_found') return { ...status, resolved_by_status: true };
      }
      throw error;
    }
  }

  /** GET /api/status/:id. An unknown id gives outcome `not_found` (state -2), not an error. */
  async status(id: string): Promise<TransferStatus> {
    const checked = transferId(id);
    try {
      return await this.transfer(route(OPERATIONS.getTransferStatus, { id: checked }), readStatus);
    } catch (error) {
      if (isPayrailError(error) && error.code === 'transfer_not_found') return notFoundStatus(checked);
      throw error;
    }
  }

  /**
   * Polls status() until the transfer is final: first after about 1 s, then
   * x1.5 each time, at most 10 s apart, for at most `timeout_ms` in total
   * (default 5 minutes). Past that it throws PayrailError `wait_timeout`.
   */
  async waitForFinal(id: string, options: WaitOptions = {}): Promise<TransferStatus> {
    const result = await this.poll(transferId(id), waitTimeout(options), () => false);
    if (result.timed_out) {
      throw new PayrailError(
        CLIENT_ERROR_CODES.wait_timeout,
        0,
        `transfer ${id} is not final after ${waitTimeout(options)} ms (state ${result.status.state}, substate ${result.status.substate})`,
      );
    }
    return result.status;
  }

  /**
   * The recommended sequence: balance, KYC, check, execute, then poll until
   * final. Business outcomes come back typed (see SendResult); request errors
   * are thrown. A receiver new to the network is invited (unless `invite` is
   * false) and the result is `invitation_sent` without waiting for them.
   */
  async send(input: Omit<TransferInput, 'id'> & { id?: string }, options: SendOptions = {}): Promise<SendResult> {
    const transfer = { ...input, id: input?.id ?? Payrail.newTransferId() } as TransferInput;
    try {
      return await this.sendTransfer(transfer, options);
    } catch (error) {
      // Whatever went wrong, the caller learns which transfer it was about (to look it up with status()).
      const id = String(transfer.id);
      if (isPayrailError(error)) throw aboutTransfer(error, id);
      throw new PayrailError(CLIENT_ERROR_CODES.unexpected_error, 0, `transfer ${id}: ${String((error as Error | null)?.message ?? error)}`, {
        cause: error,
        transferId: id,
      });
    }
  }

  private async sendTransfer(transfer: TransferInput, options: SendOptions): Promise<SendResult> {
    const body = transferBody(transfer); // refuse bad input before any call
    const amount_cents = amountCentsOf(transfer);
    const timeout_ms = waitTimeout(options);

    const balance = await this.balance();
    if (balance.available_cents < amount_cents) {
      throw new PayrailError(
        'insufficient_funds',
        0,
        `available funds ${formatCents(balance.available_cents)} (balance + overdraft) are below the amount ${formatCents(amount_cents)}`,
      );
    }
    const kyc = await this.kyc(transfer.receiver_phone, { country: transfer.receiver_country });
    const base = { id: body.id, amount_cents, balance, kyc };
    if (!kyc.registered && options.invite === false) return { ...base, outcome: 'receiver_not_registered' };
    if (kyc.registered && kyc.money_limit_cents < amount_cents) return { ...base, outcome: 'kyc_required' };

    const check = await this.check(transfer);
    let status: TransferStatus = await this.execute(transfer);
    let timedOut = false;
    // Execute's answer names no reason for a wait; the status does.
    if (status.outcome === 'waiting' && status.waiting_for === null) status = await this.status(body.id);
    if (!status.final && status.outcome !== 'waiting' && options.wait !== false) {
      // A waiting transfer needs a person (invitation) or a payin (reconciliation): do not block on it.
      const polled = await this.poll(body.id, timeout_ms, (s) => s.outcome === 'waiting');
      status = polled.status;
      timedOut = polled.timed_out;
    }
    const transferResult = { ...base, check, transfer: stripExecuteFields(status) };
    if (status.outcome === 'succeeded') return { ...transferResult, outcome: 'succeeded' };
    if (status.outcome === 'failed') return { ...transferResult, outcome: 'failed' };
    if (!timedOut && status.waiting_for === 'invitation') return { ...transferResult, outcome: 'invitation_sent' };
    if (!timedOut && status.waiting_for === 'reconciliation') return { ...transferResult, outcome: 'waiting_for_reconciliation' };
    return { ...transferResult, outcome: 'pending' };
  }

  /**
   * Sandbox-only calls standing in for what a receiver does: accept a payment
   * invitation (a waiting transfer then proceeds) or complete verification
   * (money_limit becomes 3000.00). A production server answers not_found.
   */
  readonly sandbox = {
    acceptInvitation: async (phone: string, options: { country?: string } = {}): Promise<void> => {
      await this.transfer(route(OPERATIONS.sandboxAcceptInvitation, { account: kycDigits(phone, options.country) }), ignoreBody);
    },
    completeKyc: async (phone: string, options: { country?: string } = {}): Promise<void> => {
      await this.transfer(route(OPERATIONS.sandboxCompleteKyc, { account: kycDigits(phone, options.country) }), ignoreBody);
    },
    /** Closes the merchant's open settlement batch now (as the daily close would): its transactions become settled. */
    closeBatch: async (): Promise<Batch[]> =>
      this.transfer(route(OPERATIONS.sandboxCloseBatch), (body) => readBatchList({ items: Array.isArray(body.batches) ? body.batches : [] })),
    /**
     * Runs a recurring schedule's next run now, as if its date had come (a
     * date is charged at most once: `charged` is false when it had been run).
     */
    runSchedule: async (id: number | string): Promise<{ charged: boolean; schedule: Schedule; transaction: Transaction }> =>
      this.transfer(route(OPERATIONS.sandboxRunSchedule, { id: storedId(id, 'schedule id') }), (body) => ({
        charged: body.charged === true,
        schedule: readSchedule(isRecord(body.schedule) ? body.schedule : {}),
        transaction: readTransaction(isRecord(body.transaction) ? body.transaction : {}),
      })),
    /**
     * Moves the merchant's sandbox ACH clock forward by whole business days
     * (1 to 30): its checks originate, settle and return as the sandbox
     * network then reports them; the answer counts the checks moved.
     */
    advanceAch: async (input: { businessDays: number }): Promise<AchAdvance> =>
      this.transfer(route(OPERATIONS.sandboxAdvanceAchClock), readAchAdvance, achAdvanceBody(input)),
  };

  // ---- Stored customers, saved cards, recurring schedules (docs/api-decisions.md section 15) ----

  /**
   * Stored customers. Creating sends once (no retry: a lost answer could
   * otherwise create the customer twice; look it up by customer_number).
   */
  readonly customers = {
    create: async (input: CustomerInput): Promise<Customer> => this.stored(route(OPERATIONS.createCustomer), readCustomer, defined(input)),
    /** The merchant's customers, oldest first; `customer_number` finds yours. */
    list: async (filters: CustomerFilters = {}): Promise<Customer[]> =>
      this.stored(route(OPERATIONS.listCustomers, {}, payinQuery(filters)), listOf(readCustomer)),
    get: async (id: number | string): Promise<Customer> => this.stored(route(OPERATIONS.getCustomer, { id: storedId(id, 'customer id') }), readCustomer),
    update: async (id: number | string, changes: Partial<CustomerInput>): Promise<Customer> =>
      this.stored(route(OPERATIONS.updateCustomer, { id: storedId(id, 'customer id') }), readCustomer, defined(changes)),
    /** Deletes the customer: its saved cards are erased and its schedules stop. */
    delete: async (id: number | string): Promise<void> => {
      await this.stored(route(OPERATIONS.deleteCustomer, { id: storedId(id, 'customer id') }), ignoreBody);
    },
    /** The customer's transactions, newest first unless `order` says, filtered as listTransactions filters. */
    transactions: async (id: number | string, filters: TransactionFilters = {}): Promise<Transaction[]> =>
      this.stored(route(OPERATIONS.listCustomerTransactions, { id: storedId(id, 'customer id') }, payinQuery(filters)), readTransactionList),
    /** A customer from a transaction's billing details (the transaction is linked to it when it had no customer); sent once. */
    createFromTransaction: async (input: CustomerFromTransactionInput): Promise<Customer> =>
      this.stored(route(OPERATIONS.createCustomerFromTransaction), readCustomer, defined(input)),
  };

  /**
   * Saved cards. save() uses up a nonce; the same card saved twice for one
   * customer throws `duplicate_payment_method` (409) with the existing
   * method's id in `error.details.id`. Charge a saved card with
   * `charge({ source: method.source, amount })`.
   */
  readonly paymentMethods = {
    save: async (customerId: number | string, input: SaveCardInput): Promise<PaymentMethod> =>
      this.stored(route(OPERATIONS.createPaymentMethod, { id: storedId(customerId, 'customer id') }), readPaymentMethod, defined(input)),
    /**
     * Saves a bank account (name, routing and account number, account type;
     * the SEC code is optional, WEB by default on the server); the answer shows its
     * last four digits, never the number. The same account saved twice for
     * one customer throws `duplicate_payment_method` (409). Charge it with
     * `charge({ source: method.source, amount })`.
     */
    saveCheck: async (customerId: number | string, input: SaveCheckInput): Promise<CheckPaymentMethod> =>
      this.stored(route(OPERATIONS.createPaymentMethod, { id: storedId(customerId, 'customer id') }), readCheckPaymentMethod, saveCheckBody(input)),
    list: async (customerId: number | string, page: StoredPage = {}): Promise<PaymentMethod[]> =>
      this.stored(route(OPERATIONS.listPaymentMethods, { id: storedId(customerId, 'customer id') }, payinQuery(page)), listOf(readPaymentMethod)),
    /** Every saved card of the merchant, oldest first unless order is 'desc'. */
    listAll: async (page: StoredPage = {}): Promise<PaymentMethod[]> =>
      this.stored(route(OPERATIONS.listAllPaymentMethods, {}, payinQuery(page)), listOf(readPaymentMethod)),
    /** The schedules charging the card. */
    schedules: async (id: number | string): Promise<Schedule[]> =>
      this.stored(route(OPERATIONS.listPaymentMethodSchedules, { id: storedId(id, 'payment method id') }), listOf(readSchedule)),
    get: async (id: number | string): Promise<PaymentMethod> =>
      this.stored(route(OPERATIONS.getPaymentMethod, { id: storedId(id, 'payment method id') }), readPaymentMethod),
    /** Renames the card or changes its expiry (month and year together). */
    update: async (id: number | string, changes: PaymentMethodChanges): Promise<PaymentMethod> =>
      this.stored(route(OPERATIONS.updatePaymentMethod, { id: storedId(id, 'payment method id') }), readPaymentMethod, defined(changes)),
    /** Changes a saved bank account's name, routing number, account type or SEC code (never its number). */
    updateCheck: async (id: number | string, changes: CheckPaymentMethodChanges): Promise<CheckPaymentMethod> =>
      this.stored(route(OPERATIONS.updatePaymentMethod, { id: storedId(id, 'payment method id') }), readCheckPaymentMethod, checkChangesBody(changes)),
    /** Deletes the card or bank account (its number is erased); schedules charging it stop. */
    delete: async (id: number | string): Promise<void> => {
      await this.stored(route(OPERATIONS.deletePaymentMethod, { id: storedId(id, 'payment method id') }), ignoreBody);
    },
  };

  /**
   * Saved-card tokens: a card (or the card of a nonce, `pm-` or `ref-`)
   * kept under a token without a charge; charge it with
   * `charge({ source: tokenSource(card.cardRef), amount })`. Creating sends once.
   */
  readonly savedCards = {
    create: async (input: SavedCardInput): Promise<SavedCard> => this.stored(route(OPERATIONS.createSavedCard), readSavedCard, defined(input)),
    /** Changes the token's expiry (either part, or both). */
    update: async (cardRef: string, changes: SavedCardChanges): Promise<SavedCardExpiry> =>
      this.stored(route(OPERATIONS.updateSavedCard, { cardRef }), readSavedCardExpiry, defined(changes)),
  };

  /** Recurring schedules: the worker charges each due schedule once per run date (UTC). */
  readonly schedules = {
    create: async (customerId: number | string, input: ScheduleInput): Promise<Schedule> =>
      this.stored(route(OPERATIONS.createSchedule, { id: storedId(customerId, 'customer id') }), readSchedule, scheduleBody(input)),
    list: async (customerId: number | string, page: StoredPage = {}): Promise<Schedule[]> =>
      this.stored(route(OPERATIONS.listSchedules, { id: storedId(customerId, 'customer id') }, payinQuery(page)), listOf(readSchedule)),
    /** Every schedule of the merchant, oldest first unless order is 'desc'. */
    listAll: async (page: StoredPage = {}): Promise<Schedule[]> => this.stored(route(OPERATIONS.listAllSchedules, {}, payinQuery(page)), listOf(readSchedule)),
    get: async (id: number | string): Promise<Schedule> => this.stored(route(OPERATIONS.getSchedule, { id: storedId(id, 'schedule id') }), readSchedule),
    /** Changes the amount, frequency, next run date, card, runs left or title. */
    update: async (id: number | string, changes: ScheduleChanges): Promise<Schedule> =>
      this.stored(route(OPERATIONS.updateSchedule, { id: storedId(id, 'schedule id') }), readSchedule, scheduleBody(changes)),
    pause: async (id: number | string): Promise<Schedule> =>
      this.stored(route(OPERATIONS.updateSchedule, { id: storedId(id, 'schedule id') }), readSchedule, { active: false }),
    resume: async (id: number | string): Promise<Schedule> =>
      this.stored(route(OPERATIONS.updateSchedule, { id: storedId(id, 'schedule id') }), readSchedule, { active: true }),
    delete: async (id: number | string): Promise<void> => {
      await this.stored(route(OPERATIONS.deleteSchedule, { id: storedId(id, 'schedule id') }), ignoreBody);
    },
    /** The schedule's charges, newest first unless `order` says (each has the schedule's id in transaction_details.schedule_id). */
    transactions: async (id: number | string, filters: TransactionFilters = {}): Promise<Transaction[]> =>
      this.stored(route(OPERATIONS.listScheduleTransactions, { id: storedId(id, 'schedule id') }, payinQuery(filters)), readTransactionList),
  };

  /**
   * One call of the stored-customer endpoints with Basic auth. Reads and
   * changes that are the same however often they are sent (GET, PATCH,
   * DELETE) are retried when safe; a POST that creates is sent once.
   */
  private async stored<T>(at: Route, read: (body: Record<string, unknown>) => T, body?: unknown): Promise<T> {
    const call = this.payinCall(at, { authorization: this.basicAuthorization() }, body);
    if (at.method === 'POST') {
      const answer = await this.transport.once(call);
      return readAnswer(answer, read);
    }
    return this.ask(call, read);
  }

  /**
   * The merchant's transfers (GET /api/transfers), newest first, one page
   * per iteration; a page is fetched when the loop asks for the next one:
   *
   *   for await (const page of payrail.transfers.list({ state: 60, limit: 100 })) {
   *     for (const transfer of page.transfers) console.log(transfer.id, transfer.amount);
   *   }
   *
   * Pages follow each other by cursor (`starting_after`), so none is skipped
   * or repeated while new transfers arrive. Bad options throw at the call.
   */
  readonly transfers = {
    list: (options: TransferListOptions = {}): AsyncGenerator<TransferPage, void, undefined> =>
      this.transferPages(listQuery(options), options.starting_after === undefined ? undefined : transferId(options.starting_after)),
  };

  private async *transferPages(query: URLSearchParams, startingAfter: string | undefined): AsyncGenerator<TransferPage, void, undefined> {
    let after = startingAfter;
    for (let pages = 0; pages < LIST_PAGES_MAX; pages += 1) {
      const params = new URLSearchParams(query);
      if (after !== undefined) params.set('starting_after', after);
      const text = params.toString();
      const page = await this.transfer(route(OPERATIONS.listTransfers, {}, text === '' ? '' : `?${text}`), readTransferPage);
      yield page;
      const last = page.transfers.at(-1);
      if (!page.has_more || last === undefined) return;
      after = last.id;
    }
  }

  // ---- Card payin API ---------------------------------------------------

  /**
   * POST /api/v2/transactions/charge. Every call carries an Idempotency-Key
   * (the caller's, or a fresh one reused by this call's retries), so a retry
   * never charges twice. Approved, pending, declined and failed charges are
   * results (see Charge.status); rejected requests throw.
   */
  async charge(input: ChargeInput): Promise<Charge> {
    return this.chargeCard(input, true);
  }

  private async chargeCard(input: ChargeInput, capture: boolean): Promise<Charge> {
    const cents = amountCentsOf(input);
    const body: ChargeRequestWire = {
      // The JSON number is written from the exact decimal text ("12.5"), never computed.
      amount: Number(formatCents(cents)),
      source: input.source,
      // A saved card (`pm-`) or an earlier transaction's (`ref-`) brings its own expiry and billing address.
      ...(input.expiry_month === undefined ? {} : { expiry_month: input.expiry_month }),
      ...(input.expiry_year === undefined ? {} : { expiry_year: input.expiry_year }),
      ...(input.billing_info === undefined ? {} : { billing_info: input.billing_info }),
      ...(input.transaction_details === undefined ? {} : { transaction_details: input.transaction_details }),
      ...input.extras,
      ...(capture ? {} : { capture: false }),
    };
    const key = input.idempotency_key ?? this.makeIdempotencyKey();
    const call = this.payinCall(route(OPERATIONS.chargeCard), { authorization: this.basicAuthorization(), 'idempotency-key': key }, body);
    return this.ask(call, readCharge);
  }

  // ---- Card lifecycle (authorize, capture, void, refund, verify, lists) ---

  /**
   * POST /api/v2/transactions/charge with `capture: false`: authorizes only;
   * nothing is credited until capture(). An authorization expires after 7 days.
   */
  async authorize(input: ChargeInput): Promise<Transaction> {
    return this.getTransaction((await this.chargeCard(input, false)).reference_number);
  }

  /** POST /api/v2/transactions/capture: captures an authorization in full, or for less (`amount`). Capturing again answers the same. */
  async capture(reference: string | number, options: OperationOptions = {}): Promise<Transaction> {
    return this.operation('capture', reference, options);
  }

  /** POST /api/v2/transactions/void: cancels an authorization or an unsettled capture (whose credit goes back). */
  async voidTransaction(reference: string | number, options: { idempotency_key?: string } = {}): Promise<Transaction> {
    return this.operation('void', reference, options);
  }

  /**
   * POST /api/v2/transactions/refund: refunds a settled transaction in full
   * (what is refundable) or in part; answers the refund, a transaction of its
   * own (`type: 'refund'`, `refunded_reference`). A processor decline is a
   * result (`transaction_status: 'declined'`), not an error.
   */
  async refund(reference: string | number, options: OperationOptions = {}): Promise<Transaction> {
    return this.operation('refund', reference, options);
  }

  /** POST /api/v2/transactions/reversal: void when unsettled, refund when settled. */
  async reversal(reference: string | number, options: OperationOptions = {}): Promise<Transaction> {
    return this.operation('reversal', reference, options);
  }

  /**
   * POST /api/v2/transactions/adjust: changes an unsettled transaction once:
   * its amount (`amount`, the new total: an authorization's may only go
   * down) and its details. Answers the adjusted transaction.
   */
  async adjust(reference: string | number, options: AdjustOptions = {}): Promise<Transaction> {
    return this.operation('adjust', reference, options, options.details);
  }

  /** POST /api/v2/transactions/adjust-capture: adjust(), then capture of the adjusted amount. */
  async adjustCapture(reference: string | number, options: AdjustOptions = {}): Promise<Transaction> {
    return this.operation('adjustCapture', reference, options, options.details);
  }

  /**
   * POST /api/v2/transactions/credit: sends money to the card of a source no
   * charge names (an unmatched credit), debited from the merchant like a
   * refund; answers the credit, a transaction of its own. A decline is a
   * result (`transaction_status: 'declined'`), not an error.
   */
  async credit(input: CreditInput): Promise<Transaction> {
    const key = input.idempotency_key ?? this.makeIdempotencyKey();
    const call = this.payinCall(route(OPERATIONS.creditCard), { authorization: this.basicAuthorization(), 'idempotency-key': key }, creditBody(input));
    return this.ask(call, readTransaction);
  }

  /**
   * POST /api/v2/transactions/charge with a bank account: a check (ACH
   * debit). Accepted checks show `pending`, then `originated` at the next
   * ACH cut-off, `settled` two business days later (when the merchant is
   * credited) or `returned` with a NACHA code in `check_details`. Void it
   * with voidTransaction() while pending; refund() it from five business
   * days after it was made. A decline is a result, not an error. Carries an
   * Idempotency-Key (the caller's, or a fresh one its retries reuse).
   */
  async chargeCheck(input: CheckChargeInput): Promise<Transaction> {
    const body = checkChargeBody(input);
    const key = input.idempotency_key ?? this.makeIdempotencyKey();
    const call = this.payinCall(route(OPERATIONS.chargeCard), { authorization: this.basicAuthorization(), 'idempotency-key': key }, body);
    return this.ask(call, readTransaction);
  }

  /**
   * POST /api/v2/transactions/credit with a bank account: money paid into an
   * account no check names (an ACH credit), held from the merchant's
   * balance while under way. A decline is a result, not an error.
   */
  async creditCheck(input: CheckCreditInput): Promise<Transaction> {
    const body = checkCreditBody(input);
    const key = input.idempotency_key ?? this.makeIdempotencyKey();
    const call = this.payinCall(route(OPERATIONS.creditCard), { authorization: this.basicAuthorization(), 'idempotency-key': key }, body);
    return this.ask(call, readTransaction);
  }

  /**
   * POST /api/v2/transactions/queue: keeps an authorization out of the open
   * batch. An uncaptured authorization already is (nothing changes); any
   * other transaction is refused (invalid_state, HTTP 422).
   */
  async queue(reference: string | number): Promise<void> {
    const call = this.payinCall(
      route(OPERATIONS.queueTransaction),
      { authorization: this.basicAuthorization() },
      { reference_number: referenceNumber(reference) },
    );
    await this.ask(call, ignoreBody);
  }

  /** POST /api/v2/transactions/verify: a zero-amount card check with a nonce (AVS and CVV results, no money). */
  async verify(input: Omit<ChargeInput, 'amount' | 'amount_cents'>): Promise<Transaction> {
    const body = {
      source: input.source,
      expiry_month: input.expiry_month,
      expiry_year: input.expiry_year,
      billing_info: input.billing_info,
      ...(input.transaction_details === undefined ? {} : { transaction_details: input.transaction_details }),
    };
    const key = input.idempotency_key ?? this.makeIdempotencyKey();
    const call = this.payinCall(route(OPERATIONS.verifyCard), { authorization: this.basicAuthorization(), 'idempotency-key': key }, body);
    return this.ask(call, readTransaction);
  }

  /** GET /api/v2/transactions/:id: any transaction (charge, refund, verify) with its lifecycle status. */
  async getTransaction(reference: string | number): Promise<Transaction> {
    const call = this.payinCall(route(OPERATIONS.getTransaction, { id: referenceNumber(reference) }), { authorization: this.basicAuthorization() });
    return this.ask(call, readTransaction);
  }

  /** GET /api/v2/transactions: the merchant's transactions, newest first unless `order` says (limit default 10, at most 100). */
  async listTransactions(filters: TransactionFilters = {}): Promise<Transaction[]> {
    const call = this.payinCall(route(OPERATIONS.listTransactions, {}, payinQuery(filters)), { authorization: this.basicAuthorization() });
    return this.ask(call, readTransactionList);
  }

  /** GET /api/v2/batches: settlement batches, newest first unless `order` says, by status and opening day. */
  async listBatches(filters: BatchFilters = {}): Promise<Batch[]> {
    const call = this.payinCall(route(OPERATIONS.listBatches, {}, payinQuery(filters)), { authorization: this.basicAuthorization() });
    return this.ask(call, readBatchList);
  }

  /** GET /api/v2/batches/:id. */
  async getBatch(id: number): Promise<Batch> {
    const call = this.payinCall(route(OPERATIONS.getBatch, { id: referenceNumber(id) }), { authorization: this.basicAuthorization() });
    return this.ask(call, readBatch);
  }

  /** GET /api/v2/batches/:id/transactions, filtered as listTransactions filters. */
  async listBatchTransactions(id: number, filters: TransactionFilters = {}): Promise<Transaction[]> {
    const call = this.payinCall(route(OPERATIONS.listBatchTransactions, { id: referenceNumber(id) }, payinQuery(filters)), {
      authorization: this.basicAuthorization(),
    });
    return this.ask(call, readTransactionList);
  }

  /** GET /api/v2/surcharge: the merchant's surcharge per payment type (none reads as percent 0). */
  async getSurchargeSettings(): Promise<SurchargeSettings> {
    return this.ask(this.payinCall(route(OPERATIONS.getSurchargeSettings), { authorization: this.basicAuthorization() }), readObject<SurchargeSettings>);
  }

  /** POST /api/v2/surcharge: the surcharge a charge with this source would add (a lookup: retried when safe, changes nothing). */
  async lookupSurcharge(lookup: SurchargeLookup): Promise<SourceSurcharge> {
    const body: SurchargeLookup = { source_type: lookup.source_type, source: lookup.source };
    return this.ask(this.payinCall(route(OPERATIONS.lookupSurcharge), { authorization: this.basicAuthorization() }, body), readObject<SourceSurcharge>);
  }

  /** One lifecycle POST with an Idempotency-Key (the caller's, or a fresh one its retries reuse), so a retry never acts twice. */
  private async operation(
    name: keyof typeof LIFECYCLE_OPERATIONS,
    reference: string | number,
    options: OperationOptions,
    details: AdjustOptions['details'] = {},
  ): Promise<Transaction> {
    const body = { ...details, ...operationBody(reference, options) };
    const key = options.idempotency_key ?? this.makeIdempotencyKey();
    const call = this.payinCall(route(OPERATIONS[LIFECYCLE_OPERATIONS[name]]), { authorization: this.basicAuthorization(), 'idempotency-key': key }, body);
    return this.ask(call, readTransaction);
  }

  /** GET /api/v2/transactions/:id: a charge by its reference number, with its current status. */
  async getCharge(reference: string | number): Promise<Charge> {
    const text = String(reference);
    if (!REFERENCE_PATTERN.test(text)) throw inputError('invalid_request', `reference must be the charge's reference number (digits), got "${text}"`);
    const call = this.payinCall(route(OPERATIONS.getTransaction, { id: text }), { authorization: this.basicAuthorization() });
    return this.ask(call, readCharge);
  }

  /**
   * POST /api/v2/tokens: turns card data into a single-use nonce. For sandbox
   * tests on a server only: in production, cards are tokenized in the
   * customer's browser (hosted card form) so that card data never reaches a
   * merchant server, and this method refuses a production token.
   */
  async tokenize(card: CardInput): Promise<Nonce> {
    const token = this.options.payin?.tokenization_token;
    if (token === undefined || token === '') throw missing('payin.tokenization_token', 'tokenize cards');
    if (token.startsWith(LIVE_PREFIX)) {
      throw inputError('invalid_request', 'tokenize() is for sandbox tests; in production, tokenize cards in the browser with the hosted card form');
    }
    const call = this.payinCall(
      route(OPERATIONS.createCardToken),
      { authorization: `Bearer ${token}` },
      {
        card_number: card.card_number,
        expiry_month: card.expiry_month,
        expiry_year: card.expiry_year,
        cvv2: card.cvv2,
      },
    );
    return this.ask(call, readNonce);
  }

  // ---- Events and webhooks (docs/api-decisions.md sections 11 and 14) ---

  /** POST /api/v2/webhooks: `signature` in the answer is the signing secret, shown only here. Not retried (a retry could make a second endpoint). */
  async createWebhookEndpoint(input: WebhookEndpointInput): Promise<WebhookEndpointWithSecret> {
    return readAnswer(await this.transport.once(this.merchantCall(route(OPERATIONS.createWebhookEndpoint), input)), readObject<WebhookEndpointWithSecret>);
  }

  /** GET /api/v2/webhooks: Payrail's endpoints and accept.blue webhooks, each in its own shape (tell them apart by `webhook_url`). */
  async listWebhookEndpoints(): Promise<ListedWebhook[]> {
    return this.ask(this.merchantCall(route(OPERATIONS.listWebhookEndpoints)), (body) => readItems<ListedWebhook>(body));
  }

  /** GET /api/v2/webhooks/:id. */
  async getWebhookEndpoint(id: string): Promise<WebhookEndpoint> {
    return this.ask(this.merchantCall(route(OPERATIONS.getWebhookEndpoint, { id: endpointId(id) })), readObject<WebhookEndpoint>);
  }

  /** PATCH /api/v2/webhooks/:id: change the URL, the event types (empty: all) or enabled (enabling clears a disabling by Payrail). */
  async updateWebhookEndpoint(id: string, change: WebhookEndpointChanges): Promise<WebhookEndpoint> {
    return this.ask(this.merchantCall(route(OPERATIONS.updateWebhookEndpoint, { id: endpointId(id) }), change), readObject<WebhookEndpoint>);
  }

  /** DELETE /api/v2/webhooks/:id. */
  async deleteWebhookEndpoint(id: string): Promise<void> {
    await this.ask(this.merchantCall(route(OPERATIONS.deleteWebhookEndpoint, { id: endpointId(id) })), ignoreBody);
  }

  /** POST /api/v2/webhooks/:id/rotate: a new signing secret, in effect at once. Not retried (each call makes a new secret). */
  async rotateWebhookSecret(id: string): Promise<WebhookEndpointWithSecret> {
    const call = this.merchantCall(route(OPERATIONS.rotateWebhookSecret, { id: endpointId(id) }));
    return readAnswer(await this.transport.once(call), readObject<WebhookEndpointWithSecret>);
  }

  /**
   * POST /api/v2/webhooks with accept.blue's fields: an accept.blue webhook
   * (its deliveries are accept.blue's envelope). Throws duplicate_webhook
   * (409) when the URL is registered already. Not retried.
   */
  async createAcceptBlueWebhook(input: AcceptBlueWebhookInput): Promise<AcceptBlueWebhook> {
    return readAnswer(await this.transport.once(this.merchantCall(route(OPERATIONS.createWebhookEndpoint), input)), readObject<AcceptBlueWebhook>);
  }

  /** GET /api/v2/webhooks/:id of an accept.blue webhook, its signature included. */
  async getAcceptBlueWebhook(id: number): Promise<AcceptBlueWebhook> {
    return this.ask(this.merchantCall(route(OPERATIONS.getWebhookEndpoint, { id: acceptBlueWebhookId(id) })), readObject<AcceptBlueWebhook>);
  }

  /** PATCH /api/v2/webhooks/:id of an accept.blue webhook: webhook_url, description or active. */
  async updateAcceptBlueWebhook(id: number, change: AcceptBlueWebhookChanges): Promise<AcceptBlueWebhook> {
    const call = this.merchantCall(route(OPERATIONS.updateWebhookEndpoint, { id: acceptBlueWebhookId(id) }), change);
    return this.ask(call, readObject<AcceptBlueWebhook>);
  }

  /** DELETE /api/v2/webhooks/:id of an accept.blue webhook (answered 204). */
  async deleteAcceptBlueWebhook(id: number): Promise<void> {
    await this.ask(this.merchantCall(route(OPERATIONS.deleteWebhookEndpoint, { id: acceptBlueWebhookId(id) })), ignoreBody);
  }

  /** GET /api/v2/events: newest first; pass the last id as `starting_after` for the next page. */
  async listEvents(filters: EventFilters = {}): Promise<EventPage> {
    return this.ask(this.merchantCall(route(OPERATIONS.listEvents, {}, eventQuery(filters))), readObject<EventPage>);
  }

  /** GET /api/v2/events/:id. */
  async getEvent(id: string): Promise<PayrailEvent> {
    return this.ask(this.merchantCall(route(OPERATIONS.getEvent, { id: eventId(id) })), readObject<PayrailEvent>);
  }

  /** POST /api/v2/events/:id/resend: queues the event again for every enabled endpoint subscribed to its type. */
  async resendEvent(id: string): Promise<EventResent> {
    return this.ask(this.merchantCall(route(OPERATIONS.resendEvent, { id: eventId(id) })), readObject<EventResent>);
  }

  // ---- Internals --------------------------------------------------------

  /** Events and webhooks take either merchant credential: the transfer key when set, else the payin source's Basic auth. */
  private merchantCall(at: Route, body?: unknown): Call {
    const key = this.options.api_key;
    const headers: Record<string, string> = key !== undefined && key !== '' ? { 'api-key': key } : { authorization: this.basicAuthorization() };
    return { api: 'payin', method: at.method, url: `${this.payinBase}${at.path}`, headers, ...(body === undefined ? {} : { body }) };
  }

  private transferCall(at: Route, body?: unknown): Call {
    const key = this.options.api_key;
    if (key === undefined || key === '') throw missing('api_key', 'call the transfer API');
    return { api: 'transfer', method: at.method, url: `${this.transferBase}${at.path}`, headers: { 'api-key': key }, ...(body === undefined ? {} : { body }) };
  }

  /** One transfer API call, retried when safe (every transfer call but execute is free of effects), its answer read by `read`. */
  private async transfer<T>(at: Route, read: (body: Record<string, unknown>) => T, body?: unknown): Promise<T> {
    return this.ask(this.transferCall(at, body), read);
  }

  /** One call, retried when safe, its answer read by `read`. */
  private async ask<T>(call: Call, read: (body: Record<string, unknown>) => T): Promise<T> {
    return readAnswer(await this.transport.retrying((attempt) => this.transport.once(call, attempt)), read);
  }

  private payinCall(at: Route, headers: Record<string, string>, body?: unknown): Call {
    return { api: 'payin', method: at.method, url: `${this.payinBase}${at.path}`, headers, ...(body === undefined ? {} : { body }) };
  }

  private basicAuthorization(): string {
    const key = this.options.payin?.api_key;
    const pin = this.options.payin?.pin;
    if (key === undefined || key === '' || pin === undefined || pin === '') throw missing('payin.api_key and payin.pin', 'charge cards');
    return `Basic ${btoa(`${key}:${pin}`)}`;
  }

  private async poll(id: string, timeout_ms: number, stop: (status: TransferStatus) => boolean): Promise<{ status: TransferStatus; timed_out: boolean }> {
    const deadlineMs = this.nowMs() + timeout_ms;
    let intervalMs = POLL_FIRST_INTERVAL_MS;
    let last: TransferStatus | null = null;
    for (let polls = 0; polls < POLLS_MAX; polls += 1) {
      const remainingMs = deadlineMs - this.nowMs();
      if (remainingMs <= 0 && last !== null) return { status: last, timed_out: true };
      await this.sleep(Math.max(0, Math.min(intervalMs, remainingMs)));
      last = await this.status(id);
      if (last.final || stop(last)) return { status: last, timed_out: false };
      intervalMs = Math.min(POLL_INTERVAL_MAX_MS, Math.round(intervalMs * POLL_INTERVAL_FACTOR));
    }
    return { status: last!, timed_out: true };
  }
}

/** Reads an answer's body; an answer it cannot read names its request id. */
function readAnswer<T>(answer: Answer, read: (body: Record<string, unknown>) => T): T {
  try {
    return read(answer.body);
  } catch (error) {
    throw isPayrailError(error) ? fromAnswer(error, answer.requestId) : error;
  }
}

/** The sandbox calls answer the bare envelope: nothing to read. */
function ignoreBody(): void {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object answer, handed on as the documented type (the server checks its replies against the OpenAPI document). */
function readObject<T>(body: Record<string, unknown>): T {
  if (Array.isArray(body) || typeof body !== 'object' || body === null)
    throw new PayrailError(CLIENT_ERROR_CODES.unexpected_response, 200, 'expected a JSON object');
  return body as T;
}

function readItems<T>(body: Record<string, unknown>): T[] {
  if (!Array.isArray(body.items)) throw new PayrailError(CLIENT_ERROR_CODES.unexpected_response, 200, 'expected a JSON array');
  return body.items as T[];
}

function missing(what: string, purpose: string): PayrailError {
  return new PayrailError(CLIENT_ERROR_CODES.missing_credentials, 0, `${what} must be set in the Payrail options to ${purpose}`);
}

function transferId(id: unknown): string {
  if (typeof id !== 'string' || !TRANSFER_ID_PATTERN.test(id)) {
    throw inputError('invalid_request', `id must be a string of digits (at most 40), got ${JSON.stringify(id)}`);
  }
  return id;
}

/** The list's query string (without the cursor), refusing bad options before any request. */
function listQuery(options: TransferListOptions): URLSearchParams {
  const query = new URLSearchParams();
  if (options.state !== undefined) {
    if (!LISTED_STATES.has(options.state)) throw inputError('invalid_request', `state must be one of ${[...LISTED_STATES].join(', ')}`);
    query.set('state', String(options.state));
  }
  for (const field of ['created_from', 'created_to'] as const) {
    const value = options[field];
    if (value === undefined) continue;
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) throw inputError('invalid_request', `${field} is an invalid Date`);
      query.set(field, value.toISOString());
    } else if (typeof value === 'string' && value !== '') query.set(field, value);
    else throw inputError('invalid_request', `${field} must be a Date or an ISO 8601 timestamp`);
  }
  if (options.limit !== undefined) {
    if (!Number.isInteger(options.limit) || options.limit < 1 || options.limit > LIST_LIMIT_MAX) {
      throw inputError('invalid_request', `limit must be an integer from 1 to ${LIST_LIMIT_MAX}`);
    }
    query.set('limit', String(options.limit));
  }
  return query;
}

function waitTimeout(options: WaitOptions): number {
  const timeout = options.timeout_ms ?? WAIT_TIMEOUT_DEFAULT_MS;
  if (!Number.isInteger(timeout) || timeout < 0 || timeout > WAIT_TIMEOUT_MAX_MS) {
    throw inputError('invalid_request', `timeout_ms must be an integer from 0 to ${WAIT_TIMEOUT_MAX_MS}`);
  }
  return timeout;
}

/** Adds the attribute of a charge reference given as `field` (gateway_id or approvely_id), unless the attributes already hold the same. */
function linkAttribute(attribute: Attribute[], field: string, name: 'gatewayId' | 'approvelyId', reference: string | number | undefined): void {
  if (reference === undefined) return;
  const text = String(reference);
  if (!REFERENCE_PATTERN.test(text)) throw inputError('invalid_request', `${field} must be a charge reference number (digits), got "${text}"`);
  const given = attribute.find((a) => a.name === name);
  if (given !== undefined && given.value !== text) throw inputError('invalid_request', `${field} and the ${name} attribute differ`);
  if (given === undefined) attribute.push({ name, value: text });
}

/** The wire body of check and execute, from the caller's transfer. */
export function transferBody(transfer: TransferInput): TransferRequestWire {
  const attribute = attributeArray(transfer.attributes);
  linkAttribute(attribute, 'gateway_id', 'gatewayId', transfer.gateway_id);
  linkAttribute(attribute, 'approvely_id', 'approvelyId', transfer.approvely_id);
  return {
    id: transferId(transfer.id),
    sender_phone: cleanPhone(transfer.sender_phone, 'sender_phone'),
    receiver_phone: cleanPhone(transfer.receiver_phone, 'receiver_phone'),
    amount: formatCents(amountCentsOf(transfer)),
    service: transfer.service,
    receiver_country: transfer.receiver_country,
    receiver_currency: transfer.receiver_currency,
    attribute,
  };
}

function stripExecuteFields(status: TransferStatus): TransferStatus {
  const { resolved_by_status: _ignored, ...rest } = status as ExecuteResult;
  return rest;
}
