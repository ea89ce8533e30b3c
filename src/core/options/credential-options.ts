/**
 * The options of the credential and of the service it comes from (see option-facts.ts). The
 * descriptions are action.yml's, word for word: its test holds the two together.
 */
import type { OptionFacts } from './option-shape.js'

/**
 * The secret options' names, written here and nowhere else in src/: other files take them from
 * here or from the table's lists, so a secret cannot be left out of one of them
 * (__tests__/options-walls.test.ts).
 */
export const API_KEY_OPTION = 'api-key'
export const TUNNEL_TOKEN_OPTION = 'tunnel-token'

/**
 * The CLI's variable for an input whose plain name (SVC_TUNNEL_HOST) is one the CLI writes: after
 * `. tunnel.env` the shell holds those, and `revoke` must never read them back as input.
 */
const inputVariable = (name: string) => `SVC_INPUT_${name.toUpperCase().replace(/-/g, '_')}`

export const CREDENTIAL_OPTIONS: readonly OptionFacts[] = [
  {
    name: 'credential',
    hosts: ['action', 'cli', 'component'],
    default: 'cicd',
    kinds: 'all',
    secret: false,
    value: 'auto|cicd|free|ssh-key|existing',
    description:
      '`cicd` (provision a token with the API key), `free` (5-minute token, no key, nothing to revoke), `auto` (`cicd` when `api-key` is set, else `free` with a warning), `ssh-key` (make an SSH key on the runner, upload its public half, revoke it in post) or `existing` (publish the token in `tunnel-token`; nothing requested or revoked).'
  },
  {
    name: API_KEY_OPTION,
    hosts: ['action', 'cli'],
    default: '',
    kinds: ['cicd', 'ssh-key'],
    secret: true,
    value: 'KEY',
    secretHelp: 'the API key (scope cicd:provision)',
    description:
      'API key (`sk_` + 64 hex characters). Required when `credential` is `cicd` (the key needs the `cicd:provision` scope) or `ssh-key`. Store it as a secret.'
  },
  {
    name: 'project',
    hosts: ['action', 'cli', 'component'],
    default: '',
    kinds: ['cicd'],
    secret: false,
    value: 'SLUG',
    description:
      'Project slug the credential is provisioned for. Required when `credential` is `cicd`.'
  },
  {
    name: 'environment',
    hosts: ['action', 'cli', 'component'],
    default: '',
    kinds: ['cicd'],
    secret: false,
    value: 'NAME',
    description:
      'Environment name sent to the service (for example `staging`). Not sent when empty.'
  },
  {
    name: 'ttl-minutes',
    hosts: ['action', 'cli', 'component'],
    default: '',
    kinds: ['cicd'],
    secret: false,
    value: 'N',
    description:
      "Lifetime of the credential in minutes, a positive whole number. When empty the service's default applies. Not for `ssh-key`, which is refused with it, since the service counts a key's lifetime in whole days; the key is uploaded for 1 day and revoked in post."
  },
  {
    name: 'share',
    hosts: ['action', 'cli', 'component'],
    default: 'off',
    kinds: ['cicd'],
    secret: false,
    value: 'off|create|use|revoke',
    description:
      'Share one credential across the jobs of a run (GitHub Actions, GitLab CI). `off`: this job provisions and revokes its own. `create`: provision, set the `shared-credential` output, and leave the credential to the run (requires `ttl-minutes`). `use`: open `shared-credential` instead of provisioning; post stops the tunnel and does not revoke. `revoke`: open `shared-credential` and revoke it (a final job). Only `credential: cicd`. See docs/sharing.md.'
  },
  {
    name: 'shared-credential',
    hosts: ['action', 'cli'],
    default: '',
    kinds: ['cicd'],
    secret: false,
    value: 'SEALED',
    description:
      'For `share: use` and `share: revoke`: the `shared-credential` output of the job that ran `share: create`. Sealed (AES-256-GCM) under a key derived from `api-key`, bound to this run and project: not a secret, and useless without the API key.'
  },
  {
    name: 'base-url',
    hosts: ['action', 'cli', 'component'],
    default: '',
    kinds: ['cicd', 'free', 'ssh-key'],
    secret: false,
    value: 'URL',
    description:
      'Base URL of the credential service. Required unless `credential` is `existing`, which sends no request. A URL with an empty path gets `/functions/v1` appended. Must be https; http is accepted only for loopback hosts.'
  },
  {
    name: 'revoke',
    hosts: ['action', 'cli'],
    default: 'true',
    kinds: ['cicd', 'ssh-key'],
    secret: false,
    value: 'true|false',
    switch: true,
    description: 'Revoke the token or SSH key in the post step when the job ends.'
  },
  {
    name: 'fail-on-revoke-error',
    hosts: ['action', 'cli'],
    default: 'false',
    kinds: ['cicd', 'ssh-key'],
    secret: false,
    value: 'true|false',
    switch: true,
    description: 'Fail the post step when revoking fails for good, instead of warning.'
  },
  {
    name: 'tunnel-host',
    hosts: ['action', 'cli', 'component'],
    default: '',
    kinds: 'all',
    secret: false,
    value: 'HOST',
    variable: inputVariable('tunnel-host'),
    description:
      'Override the tunnel host the service returned (self-hosted tunnel servers). Required when `credential` is `ssh-key` or `existing`, whose tunnel server no answer names.'
  },
  {
    name: 'tunnel-port',
    hosts: ['action', 'cli', 'component'],
    default: '',
    kinds: 'all',
    secret: false,
    value: 'PORT',
    variable: inputVariable('tunnel-port'),
    description:
      'Override the tunnel port the service returned (self-hosted tunnel servers). For `ssh-key` and `existing`, `2223` when empty.'
  },
  {
    name: 'client-id',
    hosts: ['action', 'cli', 'component'],
    default: '',
    kinds: ['ssh-key'],
    secret: false,
    value: 'ID',
    description:
      'For `credential: ssh-key`, required: the tunnel user (client id) the uploaded key logs in as; sent to `keys-upload` as `client_id`.'
  },
  {
    name: TUNNEL_TOKEN_OPTION,
    hosts: ['action', 'cli'],
    default: '',
    kinds: ['existing'],
    secret: true,
    value: 'TOKEN',
    variable: inputVariable(TUNNEL_TOKEN_OPTION),
    secretHelp: 'the token for --credential existing',
    description:
      'For `credential: existing`, required: the tunnel token you already hold (a standard or project token). Masked first thing. Store it as a secret.'
  },
  {
    name: 'tunnel-user',
    hosts: ['action', 'cli'],
    default: '',
    kinds: ['existing'],
    secret: false,
    value: 'USER',
    variable: inputVariable('tunnel-user'),
    description: 'For `credential: existing`, required: the tunnel user the token belongs to.'
  },
  {
    name: 'env-prefix',
    hosts: ['action', 'cli'],
    default: 'SVC',
    kinds: 'all',
    secret: false,
    value: 'PREFIX',
    description:
      'Prefix of the exported variables (`[A-Z][A-Z0-9_]*`); `SVC` exports `SVC_TUNNEL_TOKEN` and so on.'
  },
  {
    name: 'export-env',
    hosts: ['action'],
    default: 'true',
    kinds: 'all',
    secret: false,
    value: 'true|false',
    description:
      'Export the variables to later steps (`<PREFIX>_TUNNEL_TOKEN`, or `<PREFIX>_TUNNEL_KEY_FILE` for `ssh-key`, with `_USER`, `_HOST` and `_PORT`). When false only the outputs are set.'
  },
  {
    name: 'max-attempts',
    hosts: ['action', 'cli'],
    default: '3',
    kinds: 'all',
    secret: false,
    value: 'N',
    description:
      'Attempts per request (1 to 10) on network errors, timeouts, 429 and 5xx answers. With `expose`, also the attempts to open the tunnel.'
  },
  {
    // Not an input of the action: its runner's own NODE_EXTRA_CA_CERTS reaches it, and no
    // pipeline variable does. The component ignores that variable (a pipeline variable could set it).
    name: 'ca-file',
    hosts: ['cli', 'component'],
    default: '',
    kinds: 'all',
    secret: false,
    value: 'PATH',
    description:
      "A PEM file of CA certificates trusted besides Node's own for the service's answers and the URL proof, for a runner behind a TLS-inspecting proxy. The component's only way to add trust: it starts the tool without NODE_EXTRA_CA_CERTS or NODE_TLS_REJECT_UNAUTHORIZED."
  },
  {
    name: 'timeout-seconds',
    hosts: ['action', 'cli'],
    default: '30',
    kinds: 'all',
    secret: false,
    value: 'N',
    description:
      'Time limit of one HTTP attempt, in seconds (1 to 600). With `expose`, also of one attempt to connect, log in and have every forward accepted.'
  }
]
