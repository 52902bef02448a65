import type { Job } from '../../../jobs/job.ts';
import { tokenRegisterJob } from '../token-register.ts';

/** Share of legacy registrations that are MRC-100 game tokens (type "100" or "101"), which can log. */
const GAME_TOKEN_SHARE = 0.35;

/**
 * Legacy `tokenRegister` (CC-22 `token.go` TokenRegister): today's, with the same quirks, run with
 * the legacy steps (versions.ts: the Token struct has no `id`, so neither the record nor its
 * job_args carries one). It keeps a job of its own for its weight and its clients: some legacy
 * tokens are MRC-100 game tokens (type "100"/"101"), the only ones mrc100Log accepts.
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
