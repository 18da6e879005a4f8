// The answers of the payin API to a source in the accept.blue wire dialect
// (docs/acceptblue-compatibility.md): the bare transaction object of
// GET /api/v2/transactions/:id and of every transaction list, and accept.blue's
// Batch. The SDK's methods read the spec dialect; these types are for callers
// that read an accept.blue-dialect source's answers themselves.

/** accept.blue's Batch (amounts in dollars). */
export interface AcceptBlueBatchWire {
  id: number;
  opened_at: string;
  /** When the daily close will close it; null once closed. */
  auto_close_date: string | null;
  closed_at: string | null;
  /** accept.blue names a processor platform; Payrail's batches have none. */
  platform: null;
  charges_sum: number;
  charges_count: number;
  credits_sum: number;
  credits_count: number;
  transactions_count: number;
}
