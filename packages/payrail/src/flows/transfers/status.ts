// Transfer status (docs/interface-spec.md section 2.7). Another merchant's transfer reads exactly
// like an unknown id: null here, the -2 shape on the wire. The transfer list
// shows each transfer through the same statusViewOf.
import { STATE } from '../../domain/transfer-states.ts';
import { REVERSED_ATTRIBUTE } from '../../domain/transfer-reversals.ts';
import { isoTime } from '../../domain/iso-time.ts';
import { isTransferId } from '../../domain/references.ts';
import type { PayoutNetwork } from '../../providers/payout-network.ts';
import type { Service } from '../../service.ts';
import { payoutNetworkOf } from './networks.ts';
import { readTransferStatus, type TransferStatusRow } from '../../store/transfers/status.ts';
import type { Attribute } from './validate.ts';

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

export async function transferStatus(service: Service, merchantId: string, id: string): Promise<StatusView | null> {
  // An id that is not digits was never accepted, so it cannot exist.
  if (!isTransferId(id)) return null;
  const row = await readTransferStatus(service.db, merchantId, id);
  if (row === undefined) return null;
  return statusViewOf(service, id, row, isoTime(service.clock.nowMs()));
}

/** The status result of a transfer row, as GET /api/status/:id and the transfer list show it. */
export function statusViewOf(service: Pick<Service, 'providers' | 'corridors'>, id: string, row: TransferStatusRow, serverTime: string): StatusView {
  const attribute: Attribute[] = [];
  if (row.waiting_for !== null) {
    attribute.push({ name: 'waitingFor', value: row.waiting_for });
    const network = row.waiting_for === 'invitation' ? invitingNetwork(service, row.service) : undefined;
    if (network?.invitationUrl !== undefined) {
      attribute.push({ name: 'invitationUrl', value: network.invitationUrl(row.receiver_phone) });
    }
  }
  if (row.state === STATE.failed) {
    attribute.push({ name: 'provider-error-text', value: row.provider_error_text ?? '' });
    attribute.push({ name: 'provider-error-code', value: row.provider_error_code ?? '' });
  }
  // docs/api-decisions.md section 12: the card payin paying for the transfer, however it was linked.
  if (row.gateway_charge_pk !== null) attribute.push({ name: 'gatewayId', value: String(row.gateway_charge_pk) });
  // behaviour.md section 18: the payout stays final; a reversal shows here (reported, then confirmed once credited).
  if (row.reversal !== undefined && row.reversal !== null) attribute.push({ name: REVERSED_ATTRIBUTE, value: row.reversal });
  return {
    id,
    state: row.state,
    substate: row.substate,
    final: row.final,
    code: row.code,
    attribute,
    server_time: serverTime,
    trans: row.trans,
    sum_prov: row.sum_prov,
  };
}

/** The network that sent a waiting transfer's invitation: its corridor's (a transfer waits for one before its first submission). */
function invitingNetwork(service: Pick<Service, 'providers' | 'corridors'>, serviceId: string): PayoutNetwork | undefined {
  const corridor = service.corridors.byService(serviceId);
  return corridor === undefined ? undefined : payoutNetworkOf(service.providers, corridor);
}
