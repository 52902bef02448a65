import type { Job } from '../../../jobs/job.ts';
import { tokenRegisterJob } from '../token-register.ts';

const GAME_TOKEN_SHARE = 0.35;

/**
 * Legacy `tokenRegister` (CC-22 `token.go` TokenRegister): today's, run with the legacy steps, as its own
 * job for its weight and clients: some legacy tokens are MRC-100 game tokens, the only ones that can log.
 */
export const legacyTokenRegisterJob: Job = {
  ...tokenRegisterJob,
  weight: 2,
  plan(ctx) {
    const call = tokenRegisterJob.plan(ctx);
    if (!call || !ctx.rng.chance(GAME_TOKEN_SHARE)) return call;
    const token = JSON.parse(call.args[0]!) as Record<string, unknown>;
    token.type = ctx.rng.chance(0.7) ? '100' : '101';
    return { ...call, args: [JSON.stringify(token), ...call.args.slice(1)] };
  },
};
