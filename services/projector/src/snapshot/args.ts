import { parseArgs } from 'node:util';
import { parseNftId } from '@mtc/domain';
import type { SnapshotFormat } from './files.ts';

export type Subject = { kind: 'token'; token: number } | { kind: 'allTokens' } | { kind: 'nft'; id: string };

/** What `npm run snapshot -- …` asks for; connection settings come from the environment, not flags. */
export interface SnapshotArgs {
  height: number;
  /** One file each, all from one replay, in the order given. */
  subjects: Subject[];
  format: SnapshotFormat;
  out: string;
  /** Keep the scratch store (its path is printed) rather than remove it. */
  keepStore: boolean;
}

export const USAGE =
  'usage: npm run snapshot -- --height H (--token ID | --all-tokens | --nft ID)… [--format csv|ndjson] [--out DIR] [--keep-store]';

/** A command line that cannot be run; its message is one sentence for the user. */
export class UsageError extends Error {}

const INTEGER = /^[0-9]{1,15}$/;

export function parseSnapshotArgs(argv: readonly string[]): SnapshotArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        height: { type: 'string' },
        token: { type: 'string', multiple: true, default: [] },
        'all-tokens': { type: 'boolean', default: false },
        nft: { type: 'string', multiple: true, default: [] },
        format: { type: 'string', default: 'csv' },
        out: { type: 'string', default: '.' },
        'keep-store': { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.height === undefined) throw new UsageError('--height is required');
  if (!INTEGER.test(values.height) || Number(values.height) < 1)
    throw new UsageError(`--height must be a block height (an integer from 1), not "${values.height}"`);
  const subjects: Subject[] = [];
  for (const token of values.token) {
    if (!INTEGER.test(token)) throw new UsageError(`--token must be a token id (an integer), not "${token}"`);
    subjects.push({ kind: 'token', token: Number(token) });
  }
  if (values['all-tokens']) subjects.push({ kind: 'allTokens' });
  for (const id of values.nft) {
    const protocol = parseNftId(id)?.protocol;
    if (protocol !== 'MRC402' && protocol !== 'MRC400')
      throw new UsageError(`--nft must be an MRC-402 or an MRC-400 collection id, not "${id}"`);
    subjects.push({ kind: 'nft', id });
  }
  if (subjects.length === 0) throw new UsageError('say what to list: --token ID, --all-tokens or --nft ID');
  const names = subjects.map((subject) => snapshotFileName({ height: 0, subject, format: 'csv' }));
  if (new Set(names).size !== names.length) throw new UsageError('the same token or NFT is given twice');
  if (values.format !== 'csv' && values.format !== 'ndjson')
    throw new UsageError(`--format must be csv or ndjson, not "${values.format}"`);
  return {
    height: Number(values.height),
    subjects,
    format: values.format,
    out: values.out,
    keepStore: values['keep-store'],
  };
}

/** The file a snapshot writes, named by what and at which height. */
export function snapshotFileName(args: { height: number; subject: Subject; format: SnapshotFormat }): string {
  const { subject } = args;
  const what =
    subject.kind === 'token'
      ? `token-${subject.token}-holders`
      : subject.kind === 'allTokens'
        ? 'token-holders'
        : `nft-${subject.id}-holders`;
  return `${what}-at-${args.height}.${args.format}`;
}
