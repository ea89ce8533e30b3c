import { ACTION_VERSION } from '../core/version.js'

export const VERSION_TEXT = `tunnel-credentials ${ACTION_VERSION}`

export const HELP_TEXT = `Usage:
  tunnel-credentials provision [options]
      Obtain a credential; write its variables to the variables file and what revoke needs to
      the state file. With --expose, also open the tunnel in the background and print its URLs.
  tunnel-credentials revoke [options]
      Stop the tunnel, revoke the credential, delete the variables, state and key files. Safe to
      run twice, or when nothing was provisioned.
  tunnel-credentials run [options] -- COMMAND [ARGS...]
      Provision, run COMMAND with the variables in its environment (no variables file), then
      stop and revoke when it ends or on SIGINT, SIGTERM or SIGHUP. Exits with COMMAND's exit
      code.
  tunnel-credentials replay FILE.har --to URL [--index 1,3-5] [--method POST] [--path /PREFIX]
      Send the requests of a HAR (the request log) again to URL, in order, and print each
      status beside the recorded one; exit 1 when a status class differs. Reads no variable.
      Example: tunnel-credentials replay requests.har --to http://127.0.0.1:3000 --path /webhooks/
  tunnel-credentials --help | --version

Every option can also be set by its variable, SVC_ and the name in upper snake case
(--project: SVC_PROJECT); a flag wins over its variable. Secrets come only from variables:
  SVC_API_KEY              the API key (scope cicd:provision)
  SVC_INPUT_TUNNEL_TOKEN   the token for --credential existing
--tunnel-host, --tunnel-port and --tunnel-user read SVC_INPUT_TUNNEL_HOST, _PORT and _USER,
so that the variables provision writes are never read back as options.

Options (as the GitHub Action's inputs):
  --credential auto|cicd|free|ssh-key|existing   --project SLUG   --environment NAME
  --ttl-minutes N   --base-url URL   --expose web=3000,api=8080   --url-template TEMPLATE
  --tunnel-host-key PIN   --client-id ID   --tunnel-host HOST   --tunnel-port PORT
  --tunnel-user USER   --env-prefix PREFIX   --max-attempts N   --timeout-seconds N
  --revoke true|false   --fail-on-revoke-error true|false
CLI options:
  --variables-file PATH  the variables, NAME='value' lines, mode 0600 (default tunnel.env;
                         SVC_ENV_FILE, its earlier variable, still works). Not --env-file:
                         Node reads that flag itself, before tunnel-credentials runs
  --state-file PATH      what revoke needs, no secret (default .tunnel-credentials.json
                         beside the variables file)
  --outputs-file PATH    the action's outputs as one JSON object, mode 0600
  --work-dir PATH        where key files and the tunnel's directory go (default: the
                         system's temp directory)
  --tunnel-max-minutes N the tunnel ends by itself after N minutes at most (default: the
                         credential's lifetime, or 60 minutes for one without)

Exit codes: 0 success; 1 failure (one line on stderr names the option at fault); 2 usage.
Docs: https://github.com/provision-tunnel-credentials/provision-tunnel-credentials/blob/main/docs/other-ci.md
`
