/**
 * The chaincode versions whose wallet and token records differ in shape, oldest first, as the
 * metacoin-chaincode history shows them (metacoin-chain.md §3.1, §7.2; CC-22 = 756ee17):
 *
 * | version       | source                                  | wallet JSON (struct order)                                                 |
 * | ------------- | --------------------------------------- | -------------------------------------------------------------------------- |
 * | `v1`          | none public; BR's `token`→`balance` rename | regdate … jobdate, **token** (the balance list), pending (inferred)     |
 * | `v2.0`        | b62bff9 (2020-10) MetaWallet            | regdate, password, addinfo, job_type, job_args, jobdate, balance, pending  |
 * | `v2.1`        | 3e80fc0 (2020-11) MetaWallet            | … balance, pending, nonce                                                  |
 * | `v2.1-mrc800` | 3c7d18c (2021-05) MetaWallet            | … balance, mrc800, pending, nonce                                          |
 * | `v2.2`        | 4ee896f (2022-06) … 756ee17 (CC-22)     | … balance, mrc402, mrc800, pending, nonce                                  |
 * | `v2.3`        | 1ccf224 (2022-09) … CC-m 0e78fc1        | id, … balance, mrc010, mrc402, mrc800, pending, nonce                      |
 * | `current`     | … CC-t 569b17e (2023-09 …)              | as v2.3                                                                    |
 */
export type ChaincodeVersion = 'v1' | 'v2.0' | 'v2.1' | 'v2.1-mrc800' | 'v2.2' | 'v2.3' | 'current';

export const LEGACY_VERSIONS: readonly ChaincodeVersion[] = ['v1', 'v2.0', 'v2.1', 'v2.1-mrc800', 'v2.2'];

/** Whether CC-22 or older runs; v2.3 (CC-m) is current but for old MRC-400/401 layouts (metacoin-chain.md §4.3). */
export function isLegacy(version: ChaincodeVersion): boolean {
  return LEGACY_VERSIONS.includes(version);
}
