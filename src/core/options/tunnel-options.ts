/**
 * The options of the tunnel that `expose` opens (see option-facts.ts), all meaningful only with
 * `expose`. The descriptions are action.yml's, word for word: its test holds the two together.
 */
import type { OptionFacts } from './option-shape.js'
import { REQUEST_HANDLING_DEFAULTS as DEFAULTS } from './request-handling-defaults.js'

export const TUNNEL_OPTIONS: readonly OptionFacts[] = [
  {
    name: 'expose',
    hosts: ['action', 'cli', 'component'],
    default: '',
    kinds: 'all',
    secret: false,
    value: 'web=3000,api=8080',
    multiLine: true,
    description:
      'Open the tunnel in this step and expose local apps through it until the job ends. One entry per line or comma-separated: `NAME=PORT`, `NAME=HOST:PORT` (`HOST` as the runner reaches the app: `localhost`, a service container, `[::1]`), or a bare `PORT` as the only entry (named `app`). `NAME` is a lower-case DNS label. Empty: no tunnel.'
  },
  {
    name: 'url-template',
    hosts: ['action', 'cli', 'component'],
    default: '',
    kinds: 'all',
    secret: false,
    value: 'TEMPLATE',
    description:
      "How an exposed entry's public URL is formed, from `{name}`, `{user}` (tunnel user), `{host}` (tunnel host), `{fqdn}` (the answer's `tunnel_fqdn`, else the tunnel host) and `{port}` (tunnel port). Must give an http(s) URL. Empty: as the tunnel server forms it, from the answer (docs/urls.md)."
  },
  {
    name: 'tunnel-host-key',
    hosts: ['action', 'cli', 'component'],
    default: '',
    kinds: 'all',
    secret: false,
    value: 'PIN',
    multiLine: true,
    description:
      "The tunnel server's host key: `SHA256:\u2026` fingerprints or known_hosts lines, one per line. A server with another key is left before the token is sent. Empty: the first key is accepted (reconnects then accept only that one), and a notice gives its fingerprint to pin."
  },
  {
    name: 'log-requests',
    hosts: ['action', 'cli', 'component'],
    default: String(DEFAULTS.logRequests),
    kinds: 'all',
    secret: false,
    value: 'true|false',
    description:
      'With `expose`, record every request through the tunnel (time, entry, client address, method, path, status, duration, bytes each way) in a HAR file, the output `request-log`, and in the job summary. `false`: no log, and without `protect` connections are piped raw, as fast as before.'
  },
  {
    name: 'log-bodies',
    hosts: ['action', 'cli', 'component'],
    default: String(DEFAULTS.logBodies),
    kinds: 'all',
    secret: false,
    value: 'BYTES',
    description:
      "With `expose` and the log on, keep each request's and answer's body in the log, cut at this many bytes; `0` keeps none. Job summaries and artifacts of public repositories are public: bodies may hold passwords, tokens and personal data."
  },
  {
    name: 'log-headers',
    hosts: ['action', 'cli', 'component'],
    default: DEFAULTS.logHeaders,
    kinds: 'all',
    secret: false,
    value: 'redacted|unredacted',
    description:
      'With `expose` and the log on, `redacted` replaces with `REDACTED` the values of credential headers (`Authorization`, and names holding `token`, `secret`, `password`, `cookie`, `session`, `api-key` and more: docs/traffic.md) and the user-info and query values of URLs; `unredacted` keeps them. Job summaries and artifacts of public repositories are public: keep `redacted` there.'
  },
  {
    name: 'protect',
    hosts: ['action', 'cli', 'component'],
    default: String(DEFAULTS.protect),
    kinds: 'all',
    secret: false,
    value: 'true|false',
    switch: true,
    description:
      "With `expose`, put a per-run secret in front of every entry: a request without it gets 401 from the tunnel and never reaches the app. The secret and the forms that carry it are the outputs `protect-secret`, `protect-header`, `protect-urls` and `protect-webhook-urls`; `url` and `urls` stay free of it. Not authentication of the app's users; the tunnel server still sees every request."
  },
  {
    name: 'prove-url',
    hosts: ['action', 'cli', 'component'],
    default: String(DEFAULTS.proveUrl),
    kinds: 'all',
    secret: false,
    value: 'true|false',
    switch: true,
    description:
      'With `expose`, prove before the step ends that each public URL reaches this tunnel: a request from the runner with a per-run nonce, answered by the tunnel without touching the app. A URL that does not fails the step. `false` for runners that cannot reach their own public URL.'
  }
]
