// Every API operation the client calls, by the operationId the server's
// OpenAPI document gives it: its HTTP method and path template. The client's
// methods build their requests from this table and nothing else, so the
// table is what the SDK calls, and a test can hold it against the document.

export interface Operation {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The document's path template: `{name}` stands for a path parameter. */
  readonly path: string;
}

export const OPERATIONS = {
  // Transfer API
  getBalance: { method: 'GET', path: '/api/agent_balance' },
  getReceiverKyc: { method: 'GET', path: '/api/kyc/{account}' },
  checkTransfer: { method: 'POST', path: '/api/checkTransfer' },
  executeTransfer: { method: 'POST', path: '/api/transfer' },
  getTransferStatus: { method: 'GET', path: '/api/status/{id}' },
  listTransfers: { method: 'GET', path: '/api/transfers' },

  // Sandbox
  sandboxAcceptInvitation: { method: 'POST', path: '/sandbox/invitations/{account}/accept' },
  sandboxCompleteKyc: { method: 'POST', path: '/sandbox/kyc/{account}/verify' },
  sandboxCloseBatch: { method: 'POST', path: '/sandbox/batches/close' },
  sandboxRunSchedule: { method: 'POST', path: '/sandbox/schedules/{id}/run' },
  sandboxAdvanceAchClock: { method: 'POST', path: '/sandbox/ach/advance' },

  // Card payin: tokenization, charges and their lifecycle, batches
  createCardToken: { method: 'POST', path: '/api/v2/tokens' },
  chargeCard: { method: 'POST', path: '/api/v2/transactions/charge' },
  getTransaction: { method: 'GET', path: '/api/v2/transactions/{id}' },
  captureTransaction: { method: 'POST', path: '/api/v2/transactions/capture' },
  voidTransaction: { method: 'POST', path: '/api/v2/transactions/void' },
  refundTransaction: { method: 'POST', path: '/api/v2/transactions/refund' },
  reverseTransaction: { method: 'POST', path: '/api/v2/transactions/reversal' },
  adjustTransaction: { method: 'POST', path: '/api/v2/transactions/adjust' },
  adjustCaptureTransaction: { method: 'POST', path: '/api/v2/transactions/adjust-capture' },
  creditCard: { method: 'POST', path: '/api/v2/transactions/credit' },
  queueTransaction: { method: 'POST', path: '/api/v2/transactions/queue' },
  verifyCard: { method: 'POST', path: '/api/v2/transactions/verify' },
  listTransactions: { method: 'GET', path: '/api/v2/transactions' },
  listBatches: { method: 'GET', path: '/api/v2/batches' },
  getBatch: { method: 'GET', path: '/api/v2/batches/{id}' },
  listBatchTransactions: { method: 'GET', path: '/api/v2/batches/{id}/transactions' },
  getSurchargeSettings: { method: 'GET', path: '/api/v2/surcharge' },
  lookupSurcharge: { method: 'POST', path: '/api/v2/surcharge' },

  // Stored customers, saved cards, recurring schedules
  createCustomer: { method: 'POST', path: '/api/v2/customers' },
  listCustomers: { method: 'GET', path: '/api/v2/customers' },
  getCustomer: { method: 'GET', path: '/api/v2/customers/{id}' },
  updateCustomer: { method: 'PATCH', path: '/api/v2/customers/{id}' },
  deleteCustomer: { method: 'DELETE', path: '/api/v2/customers/{id}' },
  listCustomerTransactions: { method: 'GET', path: '/api/v2/customers/{id}/transactions' },
  createCustomerFromTransaction: { method: 'POST', path: '/api/v2/customers/create-from-transaction' },
  createPaymentMethod: { method: 'POST', path: '/api/v2/customers/{id}/payment-methods' },
  listPaymentMethods: { method: 'GET', path: '/api/v2/customers/{id}/payment-methods' },
  getPaymentMethod: { method: 'GET', path: '/api/v2/payment-methods/{id}' },
  updatePaymentMethod: { method: 'PATCH', path: '/api/v2/payment-methods/{id}' },
  deletePaymentMethod: { method: 'DELETE', path: '/api/v2/payment-methods/{id}' },
  listAllPaymentMethods: { method: 'GET', path: '/api/v2/payment-methods' },
  listPaymentMethodSchedules: { method: 'GET', path: '/api/v2/payment-methods/{id}/recurring-schedules' },
  createSavedCard: { method: 'POST', path: '/api/v2/saved-cards' },
  updateSavedCard: { method: 'PATCH', path: '/api/v2/saved-cards/{cardRef}' },
  createSchedule: { method: 'POST', path: '/api/v2/customers/{id}/recurring-schedules' },
  listSchedules: { method: 'GET', path: '/api/v2/customers/{id}/recurring-schedules' },
  getSchedule: { method: 'GET', path: '/api/v2/recurring-schedules/{id}' },
  updateSchedule: { method: 'PATCH', path: '/api/v2/recurring-schedules/{id}' },
  deleteSchedule: { method: 'DELETE', path: '/api/v2/recurring-schedules/{id}' },
  listScheduleTransactions: { method: 'GET', path: '/api/v2/recurring-schedules/{id}/transactions' },
  listAllSchedules: { method: 'GET', path: '/api/v2/recurring-schedules' },

  // Events and webhooks
  createWebhookEndpoint: { method: 'POST', path: '/api/v2/webhooks' },
  listWebhookEndpoints: { method: 'GET', path: '/api/v2/webhooks' },
  getWebhookEndpoint: { method: 'GET', path: '/api/v2/webhooks/{id}' },
  updateWebhookEndpoint: { method: 'PATCH', path: '/api/v2/webhooks/{id}' },
  deleteWebhookEndpoint: { method: 'DELETE', path: '/api/v2/webhooks/{id}' },
  rotateWebhookSecret: { method: 'POST', path: '/api/v2/webhooks/{id}/rotate' },
  listEvents: { method: 'GET', path: '/api/v2/events' },
  getEvent: { method: 'GET', path: '/api/v2/events/{id}' },
  resendEvent: { method: 'POST', path: '/api/v2/events/{id}/resend' },
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof OPERATIONS;

/** A request's method and path: an operation with its path parameters filled in and its query string appended. */
export interface Route {
  readonly method: Operation['method'];
  readonly path: string;
}

/**
 * The route of `operation`. Every `{name}` of its path must have a value
 * (already checked by the caller); values are percent-encoded.
 */
export function route(operation: Operation, parameters: Readonly<Record<string, string | number>> = {}, query = ''): Route {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const value = parameters[name];
    if (value === undefined) throw new Error(`${operation.path} needs a value for ${name}`);
    return encodeURIComponent(String(value));
  });
  return { method: operation.method, path: `${path}${query}` };
}
