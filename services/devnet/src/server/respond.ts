import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Reply } from './routes.ts';

/** The header every ND response carries (hard-coded there, unrelated to its package version). */
const NODE_HEADER = 'v2.2.0';

/**
 * Writes a reply as Express 4 would: `res.send(string)` (text/html, weak ETag, 304 when fresh) for
 * node answers, finalhandler's HTML page for unknown paths, plain JSON for the devnet debug route.
 */
export function writeReply(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  switch (reply.kind) {
    case 'node': {
      const tag = setNodeHeaders(res, reply.body);
      if (reply.status >= 200 && reply.status < 300 && isFresh(req, tag)) {
        // Express' res.send drops the body headers of a 304.
        res.removeHeader('Content-Type');
        res.removeHeader('Content-Length');
        res.statusCode = 304;
        return void res.end();
      }
      return end(req, res, reply.status, reply.body);
    }
    case 'express-404': {
      const message = `Cannot ${reply.method} ${encodeUrl(reply.pathname)}`;
      res.setHeader('Content-Security-Policy', "default-src 'none'");
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      return end(req, res, 404, htmlDocument(message));
    }
    case 'debug': {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      return end(req, res, 200, reply.body);
    }
  }
}

/** The headers ND's `res.send(string)` sets for `body` (Content-Length included); returns the ETag. */
export function setNodeHeaders(res: ServerResponse, body: string): string {
  const tag = weakEtag(body);
  res.setHeader('X-METACOIN-NODE', NODE_HEADER);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('ETag', tag);
  res.setHeader('Content-Length', Buffer.byteLength(body, 'utf8'));
  return tag;
}

function end(req: IncomingMessage, res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Length', Buffer.byteLength(body, 'utf8'));
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The `etag` package's weak tag: byte length in hex and 27 characters of base64 SHA-1. */
function weakEtag(body: string): string {
  const hash = createHash('sha1').update(body, 'utf8').digest('base64').slice(0, 27);
  return `W/"${Buffer.byteLength(body, 'utf8').toString(16)}-${hash}"`;
}

/** The `fresh` package's If-None-Match check (weak comparison). */
function isFresh(req: IncomingMessage, tag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  if (header.trim() === '*') return true;
  const strip = (t: string) => (t.startsWith('W/') ? t.slice(2) : t);
  return header.split(',').some((candidate) => strip(candidate.trim()) === strip(tag));
}

/** finalhandler's createHtmlDocument. */
function htmlDocument(message: string): string {
  const body = escapeHtml(message)
    .replace(/\n/g, '<br>')
    .replace(/\x20{2}/g, ' &nbsp;');
  return (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n' +
    `</head>\n<body>\n<pre>${body}</pre>\n</body>\n</html>\n`
  );
}

function escapeHtml(text: string): string {
  return text.replace(/["&'<>]/g, (c) =>
    c === '"' ? '&quot;' : c === '&' ? '&amp;' : c === "'" ? '&#39;' : c === '<' ? '&lt;' : '&gt;',
  );
}

/** The `encodeurl` package: percent-encode what may not appear in a URL, keep valid %XX escapes. */
function encodeUrl(url: string): string {
  return url.replace(/%(?![0-9A-Fa-f]{2})|[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]+/g, (match) =>
    match === '%' ? '%25' : encodeURI(match),
  );
}
