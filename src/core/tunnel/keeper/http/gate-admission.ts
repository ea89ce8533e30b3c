/**
 * How the gate lets a browser in once a navigation carried the secret: an answer that gives it
 * the gate's cookie and takes it to the same page at a URL without the secret, so the page's own
 * fetch() calls work (the Fetch standard refuses any request from a document whose URL holds
 * user info) and the secret does not stay in the address bar.
 *
 * Neither answer names a host: an edge proxy may have rewritten `Host`, so only the browser knows
 * the public one.
 * - The path form: a 303 whose Location is the path without the secret.
 * - Basic: a small page whose script replaces the URL with `location.origin` and the same path,
 *   query and fragment. A Location path cannot do it: resolved against a `user:secret@` URL, it
 *   keeps the user info (WHATWG URL, as Chromium does), and so would fetch()'s refusal.
 */
import { createHash } from 'node:crypto'
import type { RequestDecision } from './hooks.js'

/**
 * `location.origin` never holds user info. replace(): the URL with the secret leaves the tab's
 * history. The fragment, which the request never carried, is kept too.
 */
const REOPEN_SCRIPT =
  'location.replace(location.origin + location.pathname + location.search + location.hash)'

const PAGE =
  '<!doctype html>\n<html><head><meta charset="utf-8"><title>Opening the page</title>\n' +
  `<script>${REOPEN_SCRIPT}</script></head>\n` +
  '<body><noscript>The tunnel let this browser in. Open this address again without the user ' +
  'name and password in it.</noscript></body></html>\n'

// Only this one script may run, nothing may load, and the page cannot be framed.
const PAGE_POLICY =
  `default-src 'none'; script-src 'sha256-${createHash('sha256').update(REOPEN_SCRIPT).digest('base64')}'; ` +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const NOT_STORED: [string, string] = ['Cache-Control', 'no-store']

/** The path form: a 303 to `location`, a path (see pathOnly), with the cookie. */
export function redirectAdmission(location: string, setCookie: string): RequestDecision {
  return {
    answer: {
      status: 303,
      headers: [['Location', location], ['Set-Cookie', setCookie], NOT_STORED],
      body: ''
    },
    outcome: 'admitted'
  }
}

/** Basic: the page that opens the same URL without user info, with the cookie. */
export function pageAdmission(setCookie: string): RequestDecision {
  return {
    answer: {
      status: 200,
      headers: [
        ['Content-Type', 'text/html; charset=utf-8'],
        ['Set-Cookie', setCookie],
        NOT_STORED,
        ['Content-Security-Policy', PAGE_POLICY],
        ['X-Content-Type-Options', 'nosniff'],
        ['Referrer-Policy', 'no-referrer']
      ],
      body: PAGE
    },
    outcome: 'admitted'
  }
}

/**
 * `target` when it is a path a Location can hold as is, undefined otherwise. `//x` and `/\x` read
 * as another host in a browser, and an absolute-form target names one.
 */
export function pathOnly(target: string): string | undefined {
  return /^\/(?![/\\])/.test(target) ? target : undefined
}
