// GET /api/agent_balance: the merchant's prepaid balance and overdraft in cents.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { merchantAccount } from '../../domain/ledger.ts';
import type { Service } from '../../service.ts';
import { getAccount } from '../../store/ledger.ts';
import { transferAuth } from './transfer-auth.ts';

export const BalanceResponse = Type.Object({
  success: Type.Literal(true),
  error: Type.Literal(''),
  balance: Type.Object({
    balance: Type.Integer({ description: 'Balance in cents' }),
    overdraft: Type.Integer({ description: 'Overdraft limit in cents; available funds = balance + overdraft' }),
  }),
});

export function balanceRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/api/agent_balance',
      { schema: { response: { 200: BalanceResponse } }, preHandler: transferAuth(service) },
      async (request) => {
        const account = await service.db.read((tx) => getAccount(tx, merchantAccount(request.principal!.merchantId, 'available')));
        if (account === undefined) throw new Error('merchant has no available account');
        return { success: true as const, error: '' as const, balance: { balance: account.balance_cents, overdraft: 0 - (account.floor_cents ?? 0) } };
      },
    );
  };
}
