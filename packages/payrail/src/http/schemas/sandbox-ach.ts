// Wire schemas of `POST /sandbox/ach/advance` (behaviour.md section 17): the
// sandbox's ACH clock of the calling merchant moved by whole business days.
import { Type } from 'typebox';
import { ACH_ADVANCE_BUSINESS_DAYS_MAX, ACH_ADVANCE_BUSINESS_DAYS_MIN, ACH_ADVANCE_STATES } from '../../flows/ach/sandbox-clock.ts';

export const SandboxAchAdvanceRequest = Type.Object(
  {
    business_days: Type.Integer({
      minimum: ACH_ADVANCE_BUSINESS_DAYS_MIN,
      maximum: ACH_ADVANCE_BUSINESS_DAYS_MAX,
      description: "Business days (Monday to Friday, UTC) to move the merchant's ACH clock forward",
    }),
  },
  { title: 'SandboxAchAdvanceRequest', additionalProperties: false },
);

export const SandboxAchAdvanceResponse = Type.Object(
  {
    success: Type.Literal(true),
    error: Type.Literal(''),
    ach_time: Type.String({ format: 'date-time', description: "The merchant's ACH time after the move (UTC)" }),
    business_days: Type.Integer({ description: 'Business days the clock moved' }),
    moved: Type.Object(Object.fromEntries(ACH_ADVANCE_STATES.map((state) => [state, Type.Integer({ minimum: 0 })])), {
      description: "The merchant's checks that moved, counted by the state each moved to",
      additionalProperties: false,
    }),
  },
  { title: 'SandboxAchAdvanceResponse' },
);
