// GET /api/agent_balance: the merchant's prepaid balance and overdraft in cents.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { merchantBalance } from '../../../flows/merchants/merchants.ts';
import type { Service } from '../../../service.ts';
import { transferAuth } from '../../auth-hooks.ts';

export const BalanceResponse = Type.Object(
  {
    success: Type.Literal(true),
    error: Type.Literal(''),
    balance: Type.Object({
      balance: Type.Integer({ description: 'Balance in cents' }),
      overdraft: Type.Integer({ description: 'Overdraft limit in cents; available funds = balance + overdraft' }),
    }),
  },
  { title: 'BalanceResponse' },
);

export function balanceRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/api/agent_balance',
      {
        schema: { operationId: 'getBalance', summary: 'Read the merchant balance', errors: [], response: { 200: BalanceResponse } },
        preHandler: transferAuth(service),
      },
      async (request) => {
        const { balanceCents, overdraftCents } = await merchantBalance(service, request.principal!.merchantId);
        return { success: true as const, error: '' as const, balance: { balance: balanceCents, overdraft: overdraftCents } };
      },
    );
  };
}
