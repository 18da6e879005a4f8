// Webhook notifications as Authorize.net sends them (Webhooks API reference,
// developer.authorize.net/api/reference/features/webhooks.html): a JSON body
// {notificationId, eventType, eventDate, webhookId, payload{...,
// entityName:"transaction", id}} POSTed with X-ANET-Signature:
// sha512=<HMAC-SHA512 of the raw body keyed with the Signature Key, hex,
// upper case>. The stand-in delivers once, in order, and does not retry.
import { createHmac, randomUUID } from 'node:crypto';
import type { LedgerEvent } from './create-transaction.ts';
import { decimal } from './wire.ts';

/** A bound on deliveries waiting, so a dead receiver cannot grow the queue for ever. */
const QUEUE_MAX = 1000;
const DELIVERY_TIMEOUT_MS = 5000;

export function anetSignature(rawBody: string | Buffer, signatureKey: string): string {
  return `sha512=${createHmac('sha512', signatureKey).update(rawBody).digest('hex').toUpperCase()}`;
}

export function notificationBody(event: LedgerEvent, webhookId: string, nowMs: number): string {
  const { transaction } = event;
  const responseCode = transaction.status === 'FDSPendingReview' ? 4 : transaction.status === 'declined' ? 2 : 1;
  return JSON.stringify({
    notificationId: randomUUID(),
    eventType: event.eventType,
    eventDate: new Date(nowMs).toISOString(),
    webhookId,
    payload: {
      responseCode,
      authCode: transaction.authCode,
      avsResponse: transaction.avsResultCode,
      authAmount: decimal(
        transaction.type === 'authOnlyTransaction' || transaction.type === 'authCaptureTransaction'
          ? transaction.authAmountCents
          : transaction.settleAmountCents,
      ),
      ...(transaction.invoiceNumber === null ? {} : { invoiceNumber: transaction.invoiceNumber }),
      entityName: 'transaction',
      id: transaction.transId,
    },
  });
}

export class WebhookSender {
  readonly webhookId = randomUUID();
  #url: string | null = null;
  #queue: Promise<void> = Promise.resolve();
  #waiting = 0;

  constructor(private readonly signatureKey: string) {}

  to(url: string | null): void {
    if (url !== null && !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//.test(url)) {
      throw new Error('the stand-in sends webhooks to loopback addresses only');
    }
    this.#url = url;
  }

  send(events: readonly LedgerEvent[], nowMs: number): void {
    const url = this.#url;
    if (url === null) return;
    for (const event of events) {
      if (this.#waiting >= QUEUE_MAX) return;
      const body = notificationBody(event, this.webhookId, nowMs);
      this.#waiting += 1;
      this.#queue = this.#queue.then(() => this.#deliver(url, body)).finally(() => (this.#waiting -= 1));
    }
  }

  /** Resolves when every queued delivery has been tried. */
  idle(): Promise<void> {
    return this.#queue;
  }

  async #deliver(url: string, body: string): Promise<void> {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-anet-signature': anetSignature(body, this.signatureKey) },
        body,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      await response.arrayBuffer();
    } catch {
      // A receiver that is down misses the notification, as with the real gateway after its retries; polling is the backstop.
    }
  }
}
