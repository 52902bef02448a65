import { z } from 'zod';

/** Response bodies of the probes; exports are OpenAPI components of the same name. */
export const Health = z.object({ status: z.literal('ok') });

export const Readiness = z.object({
  status: z.literal('ok'),
  indexedHeight: z.int(),
  mainnetHeight: z.int(),
});
