// Check transfer (docs/interface-spec.md section 4 op 2): validates everything execute will, returns
// the rate and the amount the receiver gets, and stores a quote that execute
// of the same id honours for 15 minutes. No money moves; funds are not looked at.
import { formatMinor } from '../../domain/money.ts';
import { QUOTE_LIFETIME_MS } from '../../domain/transfer-states.ts';
import { fail } from '../../errors.ts';
import { assertRateText } from '../../providers/fx.ts';
import type { Service } from '../../service.ts';
import { readGatewayChargeFacts } from '../../store/transfers/gateway.ts';
import { saveTransferQuote } from '../../store/transfers/quotes.ts';
import { gatewayRefusal } from './gateway.ts';
import { fxRate } from './lookups.ts';
import { receivedMinorOf } from './networks.ts';
import { kycDepsOf } from './kyc-sessions.ts';
import { checkReceiver, type ReceiverStatus } from './receiver.ts';
import { validateTransfer, type TransferRequestBody } from './validate.ts';

export interface CheckResult {
  readonly fxRate: string;
  readonly receivedAmount: string;
  readonly receiverStatus: ReceiverStatus;
}

export async function checkTransfer(service: Service, merchantId: string, body: TransferRequestBody): Promise<CheckResult> {
  const transfer = validateTransfer(body, service.corridors);
  const receiverStatus = await checkReceiver(kycDepsOf(service), transfer.corridor, transfer.receiverPhone, transfer.amountCents);
  if (transfer.gatewayChargePk !== null) {
    const chargePk = transfer.gatewayChargePk;
    const facts = await readGatewayChargeFacts(service.db, chargePk);
    const refusal = gatewayRefusal({ chargePk, attribute: transfer.gatewayAttribute }, facts, merchantId, transfer.amountCents);
    if (refusal !== null) fail('invalid_request', refusal);
  }
  const corridor = transfer.corridor;
  const rate = assertRateText(await fxRate(service.providers, corridor), corridor.currency);
  const receivedMinor = receivedMinorOf(service.providers, corridor, transfer.amountCents, rate);
  const nowMs = service.clock.nowMs();
  const quote = {
    merchant_id: merchantId,
    transfer_id: transfer.id,
    service: corridor.service,
    amount_cents: transfer.amountCents,
    fx_rate: rate,
    expires_at_ms: nowMs + QUOTE_LIFETIME_MS,
  };
  await saveTransferQuote(service.db, quote, nowMs);
  return { fxRate: rate, receivedAmount: formatMinor(receivedMinor, corridor.currencyMinorUnits), receiverStatus };
}
