/**
 * The options only the command-line host has: where its files go, and how long a tunnel may live
 * (see option-facts.ts). None may be a name Node takes for itself: Node reads some of its flags
 * from the whole command line, also after the script's name, before any code of the tool runs
 * (`retiredFlag` keeps the retired ones). Their defaults are file names; the state
 * file and the request log go beside the variables file (src/cli/cli-settings.ts).
 */
import type { OptionFacts } from './option-shape.js'

const cliOnly = (
  name: string,
  value: string,
  defaultValue: string,
  description: string,
  renamed: Pick<OptionFacts, 'earlierVariable' | 'retiredFlag'> = {}
): OptionFacts => ({
  name,
  hosts: ['cli'],
  default: defaultValue,
  kinds: 'all',
  secret: false,
  value,
  description,
  ...renamed
})

export const CLI_ONLY_OPTIONS: readonly OptionFacts[] = [
  cliOnly(
    'variables-file',
    'PATH',
    'tunnel.env',
    "the variables, NAME='value' lines, mode 0600 (default tunnel.env; SVC_ENV_FILE, its earlier variable, still works). Not --env-file: Node reads that flag itself, before tunnel-credentials runs",
    // Node loads the file --env-file names (and runs the NODE_OPTIONS line in it) when the flag
    // appears anywhere before `--`, or exits 9 when it is missing: the tool cannot take it. The
    // variable was never on Node's command line, so it still works.
    { earlierVariable: 'SVC_ENV_FILE', retiredFlag: 'env-file' }
  ),
  cliOnly(
    'state-file',
    'PATH',
    '.tunnel-credentials.json',
    'what revoke needs, no secret (default .tunnel-credentials.json beside the variables file)'
  ),
  cliOnly('outputs-file', 'PATH', '', "the action's outputs as one JSON object, mode 0600"),
  cliOnly(
    'work-dir',
    'PATH',
    '',
    "where key files and the tunnel's directory go (default: the system's temp directory)"
  ),
  cliOnly(
    'tunnel-max-minutes',
    'N',
    '',
    "the tunnel ends by itself after N minutes at most (default: the credential's lifetime, or 60 minutes for one without)"
  ),
  cliOnly(
    'shared-credential-file',
    'PATH',
    'shared.env',
    'with --share create, SVC_SHARED_CREDENTIAL=SEALED alone, for the jobs that use it (a GitLab dotenv report); no secret (default shared.env in the working directory)'
  ),
  cliOnly(
    'request-log',
    'PATH',
    'requests.har',
    'with --expose, the request log, a HAR file (default requests.har beside the variables file)'
  )
]
