/**
 * A plain sentence for a failure of the embedded mode's data directory — full, read-only, not
 * writable by this user — or null for any other error. The embedded adapters fail on the first
 * write that cannot be made (they do not retry a disk that is full), the process stops, and this is
 * what it says instead of a stack trace. Nothing is lost: the log cuts a torn last line before its
 * next append and SQLite rolls back an unfinished transaction, so the next start resumes.
 */
export function dataDirProblem(error: unknown, dir: string): string | null {
  const code = errorField(error, 'code');
  const text = `${code ?? ''} ${errorField(error, 'message') ?? String(error)} ${errorField(error, 'errstr') ?? ''}`;
  const resume = 'what was indexed is kept, and the next start resumes from it';
  if (code === 'ENOSPC' || code === 'EDQUOT' || /ENOSPC|no space left|database or disk is full/i.test(text))
    return `the data directory ${dir} is full (${code === 'EDQUOT' ? 'EDQUOT' : 'ENOSPC'}): free some space or set DATA_DIR elsewhere, then start again; ${resume}`;
  if (code === 'EROFS' || /EROFS|read-only file system|readonly database/i.test(text))
    return `the data directory ${dir} is read-only (EROFS): make it writable or set DATA_DIR elsewhere, then start again; ${resume}`;
  if (code === 'EACCES' || code === 'EPERM')
    return `the data directory ${dir} is not writable by this user (${code}): fix its permissions or set DATA_DIR elsewhere`;
  return null;
}

function errorField(error: unknown, field: 'code' | 'message' | 'errstr'): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value = (error as Record<string, unknown>)[field];
  if (typeof value === 'string') return value;
  // An error's cause may carry the code (a wrapped fault).
  const cause = (error as { cause?: unknown }).cause;
  return cause === undefined || cause === error ? undefined : errorField(cause, field);
}
