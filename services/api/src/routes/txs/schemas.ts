import { RawEntry, RawTransaction } from '@mtc/domain';
import { z } from 'zod';
import { CursorFields } from '../../cursor.ts';

/** Response bodies of the transaction routes; each export is an OpenAPI component of the same name. */

export { RawEntry };

export const TxSummary = z.object({
  id: z.string().describe('Transaction hash.'),
  type: z.string().describe('What the transaction did, e.g. transfer.'),
  from: z.string(),
  to: z.string(),
  amount: z.string().describe('Integer string in the smallest unit.'),
  token: z.string().describe("Token id in decimal, '' when the transaction moves no MRC-010 token."),
  blockNum: z.int(),
  blockTs: z.int().describe("The block's timestamp, unix seconds."),
});
export type TxSummary = z.infer<typeof TxSummary>;

export const TxListEntry = TxSummary.extend({
  tokenSymbol: z.string().describe("'' when the token is not indexed."),
  tokenName: z.string().describe("'' when the token is not indexed."),
  tokenDecimal: z.int().describe('0 when the token is not indexed.'),
});
export type TxListEntry = z.infer<typeof TxListEntry>;

export const TransactionsPage = z.object({
  transactions: z.array(TxListEntry).describe('Newest first.'),
  currentBlock: z.int().describe('The indexed height.'),
  page: z.int(),
  totalPages: z.int(),
  ...CursorFields,
});
export type TransactionsPage = z.infer<typeof TransactionsPage>;

export const TxDetail = z.object({
  id: z.string(),
  type: z.string().describe('The entry type, e.g. mrc401_transfer.'),
  db_id: z.string().describe('Block hash.'),
  db_sn: z.string().describe('Block height, as a decimal string.'),
  token: z.string().describe('May be empty.'),
  values: z.object({
    tx_id: z.string(),
    job_type: z.string(),
    jobdate: z.int(),
    mrc402: z.record(z.string(), z.unknown()).nullable(),
  }),
  address: z.string(),
  datakey: z.string(),
  timestamp: z.int(),
  parameters: z.array(z.string()).describe('Non-string parameters are JSON-encoded.'),
  validationCode: z.int().describe('0 when the write was applied.'),
});
export type TxDetail = z.infer<typeof TxDetail>;

export const TxDetailList = z.array(TxDetail).describe('One element per state write of the transaction.');
export type TxDetailList = z.infer<typeof TxDetailList>;

export const RawTxResponse = z.object({
  transaction: RawTransaction.describe("The node's /transaction answer, as served."),
});
export type RawTxResponse = z.infer<typeof RawTxResponse>;
