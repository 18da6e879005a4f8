// Transfer status (spec s.2.7). Another merchant's transfer reads exactly
// like an unknown id: null here, the -2 shape on the wire.
import { STATE } from '../../domain/transfer-states.ts';
import { sandboxInvitationUrl } from '../../providers/sandbox/links.ts';
import type { Service } from '../../service.ts';
import type { Tx } from '../../store/db.ts';
import type { Attribute } from './validate.ts';
import { isTransferId } from './validate.ts';

export interface StatusView {
  readonly id: string;
  readonly state: number;
  readonly substate: number;
  readonly final: number;
  readonly code: number;
  readonly attribute: Attribute[];
  readonly server_time: string;
  readonly trans: string | null;
  readonly sum_prov: string | null;
}

interface StatusRow {
  state: number;
  substate: number;
  final: number;
  code: number;
  waiting_for: string | null;
  receiver_phone: string;
  provider_error_text: string | null;
  provider_error_code: string | null;
  trans: string | null;
  sum_prov: string | null;
}

function readStatusRow(tx: Tx, merchantId: string, id: string): Promise<StatusRow | undefined> {
  return tx.get<StatusRow>(
    'SELECT state, substate, final, code, waiting_for, receiver_phone, provider_error_text, provider_error_code, trans, sum_prov FROM transfers WHERE merchant_id = ? AND id = ?',
    [merchantId, id],
  );
}

export async function transferStatus(service: Service, merchantId: string, id: string): Promise<StatusView | null> {
  // An id that is not digits was never accepted, so it cannot exist.
  if (!isTransferId(id)) return null;
  const row = await service.db.read((tx) => readStatusRow(tx, merchantId, id));
  if (row === undefined) return null;
  const attribute: Attribute[] = [];
  if (row.waiting_for !== null) {
    attribute.push({ name: 'waitingFor', value: row.waiting_for });
    if (row.waiting_for === 'invitation' && service.config.providers.payoutNetwork === 'sandbox') {
      attribute.push({ name: 'invitationUrl', value: sandboxInvitationUrl(service.config.publicUrl, row.receiver_phone) });
    }
  }
  if (row.state === STATE.failed) {
    attribute.push({ name: 'provider-error-text', value: row.provider_error_text ?? '' });
    attribute.push({ name: 'provider-error-code', value: row.provider_error_code ?? '' });
  }
  return {
    id,
    state: row.state,
    substate: row.substate,
    final: row.final,
    code: row.code,
    attribute,
    server_time: new Date(service.clock.nowMs()).toISOString(),
    trans: row.trans,
    sum_prov: row.sum_prov,
  };
}
