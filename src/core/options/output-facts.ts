/**
 * Every output of the main step, on both hosts (GitHub's step outputs, the CLI's outputs file):
 * its name, whether it holds a secret, and its description as action.yml gives it. The test of
 * action.yml and the README's outputs table are held to this table.
 */
export interface OutputFacts {
  name: string
  /** Holds a secret: masked before it is set, and never in a log line or the summary. */
  secret: boolean
  description: string
}

export const OUTPUTS: readonly OutputFacts[] = [
  {
    name: 'token',
    secret: true,
    description:
      'The tunnel token (masked in logs). For a free credential, the client secret. Empty for `ssh-key`.'
  },
  {
    name: 'tunnel-user',
    secret: false,
    description:
      'The tunnel user. For a free credential, the client id; for `ssh-key`, the `client-id` input.'
  },
  { name: 'client-id', secret: false, description: 'The client id the service returned.' },
  { name: 'tunnel-host', secret: false, description: 'Host of the tunnel server.' },
  { name: 'tunnel-port', secret: false, description: 'SSH port of the tunnel server.' },
  {
    name: 'expires-at',
    secret: false,
    description: 'When the credential or SSH key expires (ISO 8601 UTC); empty when unknown.'
  },
  { name: 'ttl-minutes', secret: false, description: 'The TTL the service applied, in minutes.' },
  { name: 'project-slug', secret: false, description: 'The project the credential is bound to.' },
  {
    name: 'key-id',
    secret: false,
    description:
      'For `ssh-key`: the id of the uploaded key, as `revoke-ssh-key` and `user-keys-list` name it.'
  },
  {
    name: 'key-fingerprint',
    secret: false,
    description:
      "For `ssh-key`: the key's fingerprint, `SHA256:\u2026`, as `ssh-keygen -l` prints it."
  },
  {
    name: 'key-file',
    secret: false,
    description:
      'For `ssh-key`: path of the private key file (OpenSSH format, mode 0600) under `RUNNER_TEMP`; deleted in post.'
  },
  {
    name: 'credential',
    secret: false,
    description: 'The kind that was used, `cicd`, `free`, `ssh-key` or `existing`.'
  },
  {
    name: 'shared-credential',
    secret: false,
    description:
      'With `share: create`: the credential, sealed for the other jobs of this run (pass it as a job output to their `shared-credential` input). Not a secret: opening it needs `api-key`. Empty otherwise.'
  },
  { name: 'url', secret: false, description: 'With `expose`, the public URL of the first entry.' },
  {
    name: 'urls',
    secret: false,
    description:
      'With `expose`, a JSON object of every entry\'s public URL by name, such as `{"web":"https://web-u1.tunnel.example"}`.'
  },
  {
    name: 'request-log',
    secret: false,
    description:
      "With `expose` and `log-requests`, the path of the request log: a HAR 1.2 file, which browsers' DevTools open, in `RUNNER_TEMP` beside the tunnel's folder (post removes the folder, not the log). It is complete at any moment after this step, so an `actions/upload-artifact` step with `if: always()` uploads a file that opens."
  },
  {
    name: 'protect-secret',
    secret: true,
    description: 'With `protect`, the per-run secret every request must carry (masked in logs).'
  },
  {
    name: 'protect-header',
    secret: true,
    description:
      "With `protect`, the full header line that carries the secret, `X-Tunnel-Gate: \u2026`, for `curl -H` and API tests; it leaves the app's own `Authorization` free. Not for browsers: Playwright's `extraHTTPHeaders` sends it to every origin a page loads from (masked in logs)."
  },
  {
    name: 'protect-urls',
    secret: true,
    description:
      "With `protect`, a JSON object of every entry's URL by name with the secret as `user:secret@` credentials, for browsers and Selenium: the first page gets a per-run cookie and reopens without the secret, so the app's own `fetch()` calls work (masked in logs)."
  },
  {
    name: 'protect-webhook-urls',
    secret: true,
    description:
      "With `protect`, a JSON object of every entry's URL by name with the secret in its path, for webhook senders that take only a URL; the app sees the request as if it had none (masked in logs)."
  }
]

/** The outputs that hold a secret: `token` and the gate's. */
export const SECRET_OUTPUT_NAMES: readonly string[] = OUTPUTS.filter(o => o.secret).map(o => o.name)
