import { optionFacts, optionsOf } from '../core/options/option-facts.js'
import { ACTION_VERSION } from '../core/version.js'
import { ACTION_OPTIONS, CLI_OPTIONS, variableFor } from './option-names.js'

const WIDTH = 94
const DESCRIPTION_COLUMN = 25

/** `--name VALUE`, as the options' table shows the value. */
function usage(name: string): string {
  return `--${name} ${optionFacts(name)?.value ?? 'VALUE'}`
}

/** The action's options, as many to a line as fit; their descriptions are in the README. */
function actionOptionsText(): string {
  const lines: string[] = []
  for (const item of ACTION_OPTIONS.map(usage)) {
    const last = lines.length - 1
    if (last >= 0 && lines[last].length + 3 + item.length <= WIDTH) lines[last] += `   ${item}`
    else lines.push(`  ${item}`)
  }
  return lines.join('\n')
}

/** The CLI's own options, each with its description from the table, wrapped beside it. */
function cliOptionsText(): string {
  return CLI_OPTIONS.map(name => {
    const head = `  ${usage(name)}`.padEnd(DESCRIPTION_COLUMN - 1)
    const words = (optionFacts(name)?.description ?? '').split(' ')
    const lines = [`${head} `]
    for (const word of words) {
      const last = lines.length - 1
      const fresh = lines[last].length <= DESCRIPTION_COLUMN
      if (!fresh && lines[last].length + 1 + word.length > WIDTH) {
        lines.push(`${' '.repeat(DESCRIPTION_COLUMN)}${word}`)
      } else lines[last] += fresh ? word : ` ${word}`
    }
    return lines.join('\n')
  }).join('\n')
}

/** Each secret's variable, the one place it can come from, with what it holds. */
function secretVariablesText(): string {
  return optionsOf('cli')
    .filter(option => option.secret)
    .map(
      option => `  ${variableFor(option.name).padEnd(DESCRIPTION_COLUMN)}${option.secretHelp ?? ''}`
    )
    .join('\n')
}

/** "a, b and c" */
function listed(items: string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`
}

/**
 * The flags whose variable is not the plain one: "--tunnel-host, --tunnel-port and --tunnel-user
 * read SVC_INPUT_TUNNEL_HOST, _PORT and _USER", the shared start of the variables written once.
 */
function renamedVariablesText(): string {
  const renamed = optionsOf('cli').filter(option => !option.secret && option.variable !== undefined)
  const variables = renamed.map(option => variableFor(option.name))
  const parts = variables.map(variable => variable.split('_'))
  let shared = 0
  while (parts.every(words => shared < words.length - 1 && words[shared] === parts[0][shared])) {
    shared++
  }
  const short = parts.map((words, index) =>
    index === 0 ? words.join('_') : `_${words.slice(shared).join('_')}`
  )
  return `${listed(renamed.map(option => `--${option.name}`))} read ${listed(short)},`
}

export const VERSION_TEXT = `tunnel-credentials ${ACTION_VERSION}`

export const HELP_TEXT = `Usage:
  tunnel-credentials provision [options]
      Obtain a credential; write its variables to the variables file and what revoke needs to
      the state file. With --expose, also open the tunnel in the background and print its URLs.
      --share create also writes SVC_SHARED_CREDENTIAL to shared.env for the run's other jobs;
      --share use takes the run's credential from SVC_SHARED_CREDENTIAL instead.
  tunnel-credentials revoke [options]
      Stop the tunnel, revoke the credential, delete the variables, state and key files. Safe to
      run twice, or when nothing was provisioned. A shared credential is left to the run, whose
      final job runs revoke --share revoke: it revokes SVC_SHARED_CREDENTIAL's, no state needed.
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
${secretVariablesText()}
${renamedVariablesText()}
so that the variables provision writes are never read back as options.

Options (as the GitHub Action's inputs):
${actionOptionsText()}
CLI options:
${cliOptionsText()}

Exit codes: 0 success; 1 failure (one line on stderr names the option at fault); 2 usage.
Docs: https://github.com/provision-tunnel-credentials/provision-tunnel-credentials/blob/main/docs/other-ci.md
`
