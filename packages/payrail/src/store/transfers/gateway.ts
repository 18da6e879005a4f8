// What a gatewayId names, read to word a refusal (flows/transfers/gateway.ts).
import type { Db } from '../db.ts';
import { type GatewayChargeFacts, gatewayChargeFacts } from '../transfers.ts';

/** The facts of charge `chargePk`, whoever's it is; undefined when there is no such charge. */
export function readGatewayChargeFacts(db: Db, chargePk: number): Promise<GatewayChargeFacts | undefined> {
  return db.read((tx) => gatewayChargeFacts(tx, chargePk));
}
