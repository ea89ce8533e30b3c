/**
 * The command line, parsed without a library: three commands, `--name value` flags, and the
 * command `run` starts; `replay`, which takes none of those options, parses its own
 * (replay-arguments.ts). Usage errors never repeat a value, since a value typed in the wrong
 * place may be a secret.
 */
import {
  isFlagName,
  isSecretOption,
  RETIRED_OPTIONS,
  SWITCHES,
  variableFor,
  type FlagName
} from './option-names.js'

export const COMMANDS = ['provision', 'revoke', 'run'] as const
export type CommandName = (typeof COMMANDS)[number]

export type ParsedArguments =
  | { type: 'help' }
  | { type: 'version' }
  /** `replay`'s own arguments, after the word: it shares no option with the other commands. */
  | { type: 'replay'; args: string[] }
  | {
      type: 'command'
      command: CommandName
      flags: Map<FlagName, string>
      /** `run`'s command and its arguments, after `--`. */
      commandLine: string[]
    }

/** A mistake in how the tool was called: exit code 2, with the usage hint. */
export class UsageError extends Error {}

export function parseArguments(argv: string[]): ParsedArguments {
  const dashes = argv.indexOf('--')
  const own = dashes === -1 ? argv : argv.slice(0, dashes)
  const commandLine = dashes === -1 ? [] : argv.slice(dashes + 1)
  if (own.includes('--help') || own.includes('-h')) return { type: 'help' }
  if (own.includes('--version') || own.includes('-V')) return { type: 'version' }
  if (argv[0] === 'replay') return { type: 'replay', args: argv.slice(1) }

  let command: CommandName | undefined
  const flags = new Map<FlagName, string>()
  for (let index = 0; index < own.length; index++) {
    const token = own[index]
    if (!token.startsWith('-')) {
      if (command !== undefined) {
        const hint =
          command === 'run' ? ': put the command after "--", e.g. run -- ./deploy.sh' : '.'
        throw new UsageError(
          `${describePositional(token)} is not expected after "${command}"${hint}`
        )
      }
      command = commandNamed(token)
      continue
    }
    const { name, inline } = splitFlag(token)
    if (flags.has(name)) throw new UsageError(`--${name} is given twice.`)
    let value = inline
    if (value === undefined) {
      const next = own[index + 1]
      if (SWITCHES.has(name)) {
        // A bare switch means true; an explicit true or false may follow it, in any case, as
        // the value is read (`--revoke FALSE` as `--revoke=FALSE`).
        const given = switchValue(name, next, command)
        if (given !== undefined) index++
        value = given ?? 'true'
      } else if (next === undefined || next.startsWith('--')) {
        throw new UsageError(`--${name} needs a value.`)
      } else {
        value = own[++index]
      }
    }
    flags.set(name, value)
  }
  if (command === undefined)
    throw new UsageError('Name a command: provision, revoke, run or replay.')
  if (command === 'run' && commandLine.length === 0) {
    throw new UsageError('run needs the command to start after "--", e.g. run -- ./deploy.sh')
  }
  if (command !== 'run' && dashes !== -1) {
    throw new UsageError(`${command} starts no command; only run takes one after "--".`)
  }
  return { type: 'command', command, flags, commandLine }
}

/**
 * The value of a switch written without `=`: the next word when it is true or false; undefined
 * (the switch stands bare, for true) when a flag, the command or nothing follows.
 * Any other word there (`--protect yes`) is a value the switch does not take, not a stray
 * argument: refused naming the switch and its values, without repeating the word, which may be
 * a secret typed in the wrong place. The command still to come (`--protect provision`) is not one.
 */
function switchValue(
  name: FlagName,
  next: string | undefined,
  command: CommandName | undefined
): string | undefined {
  if (next === undefined || next.startsWith('-')) return undefined
  if (/^(true|false)$/i.test(next)) return next
  if (command === undefined && isCommandWord(next)) return undefined
  throw new UsageError(
    `--${name} takes true or false: write --${name} alone or --${name} true to turn it on, --${name} false to turn it off.`
  )
}

function isCommandWord(word: string): boolean {
  return word === 'replay' || COMMANDS.some(name => name === word)
}

function commandNamed(word: string): CommandName {
  const command = COMMANDS.find(name => name === word)
  if (word === 'replay') {
    throw new UsageError('replay comes first: tunnel-credentials replay FILE.har --to URL')
  }
  if (command === undefined) {
    throw new UsageError(
      `${describePositional(word)} is not a command: use provision, revoke, run or replay.`
    )
  }
  return command
}

/** The flag's name, and its value when written `--name=value`. Only known names get through. */
function splitFlag(token: string): { name: FlagName; inline?: string } {
  const equals = token.indexOf('=')
  const flag = equals === -1 ? token : token.slice(0, equals)
  const name = flag.replace(/^--/, '')
  if (isSecretOption(name)) {
    throw new UsageError(
      `${flag} is refused: a secret on the command line is visible to every process on the machine and kept in shell history. Set the variable ${variableFor(name)} instead.`
    )
  }
  const successor = flag.startsWith('--') ? RETIRED_OPTIONS.get(name) : undefined
  if (successor !== undefined) {
    throw new UsageError(
      `${flag} is now --${successor}: Node reads ${flag} itself, before tunnel-credentials runs, so it cannot be an option of the tool. Use --${successor}, or the variable ${variableFor(successor)}.`
    )
  }
  if (!flag.startsWith('--') || !isFlagName(name)) {
    throw new UsageError(`${describeWord(flag)} is not an option.`)
  }
  return equals === -1 ? { name } : { name, inline: token.slice(equals + 1) }
}

/**
 * A word typed where a command goes, quoted only when it is a command's name or a typo of one:
 * any other word may be a value typed in the wrong place, a secret among them.
 */
function describePositional(word: string): string {
  const nearCommand = COMMANDS.some(name => editDistance(word, name) <= 2)
  return nearCommand ? `"${word}"` : 'An argument'
}

/** Levenshtein distance, small strings only (commands are at most 9 characters). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, substitution)
    }
    previous = current
  }
  return previous[b.length]
}

/** A flag the user typed, quoted when it looks like a flag name, never otherwise. */
function describeWord(word: string): string {
  return /^-{0,2}[A-Za-z][A-Za-z0-9-]{0,39}$/.test(word) ? `"${word}"` : 'An argument'
}
