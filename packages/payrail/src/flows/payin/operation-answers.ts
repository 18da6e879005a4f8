// The card operations' answers in the accept.blue dialect
// (docs/acceptblue-compatibility.md; accept.blue's AdjustCaptureResponse,
// RefundResponse, VoidResponse and ReversalResponse). The flows render
// and keep every operation's reply once, in the spec dialect (shape A or B,
// the reply an Idempotency-Key replays byte for byte); an accept.blue caller
// gets that same reply translated here, so a replay translates to the same
// answer. Pure: reply text in, reply text out.
//
// A processor decline or failure is HTTP 200 with status Declined/Error and
// the error members; a success has them null (WooCommerce fails a void or
// refund whose error_message is not empty, Pinelab a refund whose error_code
// is truthy). An operation whose processor has not answered yet is not a
// success either: it answers Error with error_code "processor_pending", and
// the same Idempotency-Key answers its outcome once the worker has it.
import { ACCEPTBLUE_API_VERSION, type WireDialect } from '../../domain/wire-dialect.ts';
import type { Reply } from '../common/idempotency-replay.ts';

/** Which accept.blue answer an operation gives. */
export type AnsweredOperation = 'capture' | 'adjust' | 'adjust-capture' | 'void' | 'refund' | 'credit' | 'reversal';

/** The members of a spec reply (shape A or B) this translation reads. */
interface SpecReply {
  readonly status?: string;
  readonly reference_number?: number;
  readonly id?: string;
  readonly auth_code?: string;
  readonly auth_amount?: number;
  readonly error?: { readonly code: string; readonly message: string };
  readonly transaction?: { readonly status_details?: { readonly status?: string }; readonly check_details?: unknown };
}

const PENDING_MESSAGE = 'The card processor has not answered yet; ask again with the same Idempotency-Key, or read the transaction';

type Outcome =
  | { readonly kind: 'approved'; readonly referenceNumber: number; readonly authCode: string; readonly authAmount: number; readonly transactionStatus: string }
  | { readonly kind: 'refused'; readonly referenceNumber: number; readonly declined: boolean; readonly code: string; readonly message: string }
  | { readonly kind: 'pending'; readonly referenceNumber: number };

function outcomeOf(reply: SpecReply, requestedPk: number): Outcome {
  if (reply.error !== undefined) {
    const referenceNumber = reply.id === undefined ? requestedPk : Number(reply.id);
    return { kind: 'refused', referenceNumber, declined: reply.status === 'declined', code: reply.error.code, message: reply.error.message };
  }
  const referenceNumber = reply.reference_number ?? requestedPk;
  const transactionStatus = reply.transaction?.status_details?.status ?? '';
  // An approved check is final even while its entry shows pending (it waits for the ACH cut-off, not for an answer).
  const check = reply.transaction?.check_details !== undefined;
  if (reply.status !== 'Approved' || (transactionStatus === 'pending' && !check)) return { kind: 'pending', referenceNumber };
  return { kind: 'approved', referenceNumber, authCode: reply.auth_code ?? '', authAmount: reply.auth_amount ?? 0, transactionStatus };
}

function base(outcome: Outcome): Record<string, unknown> {
  switch (outcome.kind) {
    case 'approved':
      return { version: ACCEPTBLUE_API_VERSION, status: 'Approved', status_code: 'A', error_message: null, error_code: null, error_details: null };
    case 'refused':
      return {
        version: ACCEPTBLUE_API_VERSION,
        status: outcome.declined ? 'Declined' : 'Error',
        status_code: outcome.declined ? 'D' : 'E',
        error_message: outcome.message,
        error_code: outcome.code,
        error_details: null,
      };
    case 'pending':
      return {
        version: ACCEPTBLUE_API_VERSION,
        status: 'Error',
        status_code: 'E',
        error_message: PENDING_MESSAGE,
        error_code: 'processor_pending',
        error_details: null,
      };
  }
}

/** AdjustCaptureResponse, with reference_number (WooCommerce reads it after a capture). */
function adjustCaptureAnswer(outcome: Outcome): Record<string, unknown> {
  const approved = outcome.kind === 'approved';
  return {
    ...base(outcome),
    auth_amount: approved ? outcome.authAmount : 0,
    ...(approved ? { auth_code: outcome.authCode } : {}),
    reference_number: outcome.referenceNumber,
  };
}

/** RefundResponse: reference_number is the new refund or credit transaction. */
function refundAnswer(outcome: Outcome): Record<string, unknown> {
  return { ...base(outcome), reference_number: outcome.referenceNumber };
}

/** What a reversal did, read from its reply: a new transaction is a refund; the same one is voided or adjusted. */
function reversalTypeOf(outcome: Outcome, requestedPk: number): 'Void' | 'Refund' | 'Adjustment' {
  if (outcome.referenceNumber !== requestedPk) return 'Refund';
  return outcome.kind === 'approved' && outcome.transactionStatus !== 'voided' ? 'Adjustment' : 'Void';
}

function reversalAnswer(outcome: Outcome, requestedPk: number): Record<string, unknown> {
  const type = reversalTypeOf(outcome, requestedPk);
  if (type === 'Refund') return { ...refundAnswer(outcome), type };
  if (type === 'Adjustment') return { ...adjustCaptureAnswer(outcome), type };
  return { ...base(outcome), type };
}

/** `reply` (the spec dialect's, as kept) as accept.blue answers `operation` of reference number `requestedPk`. */
export function acceptBlueOperationAnswer(operation: AnsweredOperation, reply: Reply, requestedPk: number): Reply {
  const outcome = outcomeOf(JSON.parse(reply.json) as SpecReply, requestedPk);
  let answer: Record<string, unknown>;
  switch (operation) {
    case 'capture':
    case 'adjust':
    case 'adjust-capture':
      answer = adjustCaptureAnswer(outcome);
      break;
    case 'refund':
    case 'credit':
      answer = refundAnswer(outcome);
      break;
    case 'void':
      answer = base(outcome);
      break;
    case 'reversal':
      answer = reversalAnswer(outcome, requestedPk);
      break;
  }
  return { ...reply, json: JSON.stringify(answer) };
}

/** `reply` as a caller in `dialect` gets it: the spec dialect's as kept, the accept.blue dialect's translated. */
export function operationAnswerIn(dialect: WireDialect, operation: AnsweredOperation, reply: Reply, requestedPk: number): Reply {
  return dialect === 'acceptblue' ? acceptBlueOperationAnswer(operation, reply, requestedPk) : reply;
}
