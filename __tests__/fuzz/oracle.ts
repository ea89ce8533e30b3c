/**
 * What must hold after the main and post steps met one hostile answer, judged on what the runner
 * receives: raw stdout lines before any masking, the GITHUB_ENV / GITHUB_OUTPUT / GITHUB_STATE
 * files as the runner parses them, and the revoke-token requests sent. Pure: returns one sentence
 * per broken rule, empty when the run was sound.
 */
import type { StepOutcome } from '../helpers/in-process-step.js'
import { TOKEN_CORE, type ServiceAnswer } from './answers.js'

export interface Observed {
  main: StepOutcome
  /** Anything runMain threw: the real entry point would die with a stack trace and no ::error::. */
  mainThrew?: unknown
  post: StepOutcome
  postThrew?: unknown
  /** The credential-provision answer main received last: the one it acted on. */
  lastAnswer?: ServiceAnswer
  revokes: { step: 'main' | 'post'; body: unknown }[]
}

export interface Context {
  apiKey: string
  project: string
  /** Every secret the service sent in any answer, duplicates and echoes included. */
  secrets: string[]
  /** True when the post step's revoke answer was a 2xx, which is success with or without a body. */
  revokeAnswerOk: boolean
}

const ENV_PREFIX = 'SVC'
const ENV_NAMES = ['TOKEN', 'USER', 'HOST', 'PORT'].map(n => `${ENV_PREFIX}_TUNNEL_${n}`)
const OUTPUT_NAMES = [
  'token',
  'tunnel-user',
  'client-id',
  'tunnel-host',
  'tunnel-port',
  'expires-at',
  'ttl-minutes',
  'project-slug',
  'credential'
]
const STATE_NAMES = ['isPost', 'credential']

// The runner's registered commands; it compares names ignoring case.
const RUNNER_COMMANDS = new Set([
  'add-mask',
  'add-matcher',
  'add-path',
  'debug',
  'echo',
  'endgroup',
  'error',
  'group',
  'notice',
  'remove-matcher',
  'save-state',
  'set-env',
  'set-output',
  'stop-commands',
  'warning'
])
/** What this action means to print: masks, annotations and debug lines. */
const INTENDED_COMMANDS = new Set(['add-mask', 'error', 'warning', 'notice', 'debug'])

/** Characters that must never reach the runner's files or a log line from a value. */
const UNCLEAN = /[\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u

export function isClean(value: string): boolean {
  return !UNCLEAN.test(value)
}

interface RunnerCommand {
  name: string
  message: string
  legacy: boolean
}

/**
 * Lines as the runner reads stdout (.NET ReadLine: '\n', '\r' or '\r\n' ends a line). The helper
 * already split at '\n' and '\r\n', so a lone '\r' is left inside a line.
 */
export function runnerLines(outcome: StepOutcome): string[] {
  return outcome.lines.flatMap(line => line.split('\r'))
}

function unescapeData(text: string): string {
  return text.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%')
}

/**
 * The command a line holds for the runner: `::name ...::data` at the start (after spaces), or
 * else the legacy `##[name ...]data` anywhere in the line.
 */
export function runnerCommand(line: string): RunnerCommand | undefined {
  const text = line.trimStart()
  if (text.startsWith('::')) {
    const end = text.indexOf('::', 2)
    if (end >= 0) {
      const name = text.slice(2, end).split(' ')[0].toLowerCase()
      if (RUNNER_COMMANDS.has(name)) {
        return { name, message: unescapeData(text.slice(end + 2)), legacy: false }
      }
    }
  }
  const start = line.indexOf('##[')
  if (start >= 0) {
    const close = line.indexOf(']', start)
    if (close >= 0) {
      const name = line
        .slice(start + 3, close)
        .split(' ')[0]
        .toLowerCase()
      if (RUNNER_COMMANDS.has(name)) return { name, message: line.slice(close + 1), legacy: true }
    }
  }
  return undefined
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The alias rule of the service's two spellings: a null or absent field falls back. */
function either(body: Record<string, unknown>, ...keys: string[]): unknown {
  for (const key of keys) if (body[key] !== undefined && body[key] !== null) return body[key]
  return undefined
}

/** The user an answer names (a non-empty string): the service issued a credential to revoke. */
export function issuedUser(answer: ServiceAnswer | undefined): string | undefined {
  if (!answer || answer.status < 200 || answer.status > 299) return undefined
  const body = parseBody(answer.body)
  if (!isObject(body)) return undefined
  const tunnelUser = either(body, 'tunnel_user', 'tunnel_client_id')
  return typeof tunnelUser === 'string' && tunnelUser !== '' ? tunnelUser : undefined
}

/** A token and user that pass their own checks: the service issued something usable. */
export function issuedCredential(
  answer: ServiceAnswer | undefined
): { token: string; tunnelUser: string } | undefined {
  if (!answer || answer.status < 200 || answer.status > 299) return undefined
  const body = parseBody(answer.body)
  if (!isObject(body)) return undefined
  const token = either(body, 'token', 'tunnel_client_secret')
  const tunnelUser = either(body, 'tunnel_user', 'tunnel_client_id')
  if (typeof token !== 'string' || typeof tunnelUser !== 'string') return undefined
  if (!token || !tunnelUser || !isClean(token) || !isClean(tunnelUser)) return undefined
  return { token, tunnelUser }
}

const present = (value: unknown): boolean => value !== undefined && value !== null

/**
 * Why an answer that passes every field's own check must still be refused, judged from the answer
 * as sent: it says two things at once, or a field of the product's shape is malformed (issue 27).
 * Undefined when nothing here forbids it.
 */
export function mustRefuse(answer: ServiceAnswer | undefined): string | undefined {
  const body = answer && parseBody(answer.body)
  if (!isObject(body)) return undefined
  for (const [spec, product] of [
    ['token', 'tunnel_client_secret'],
    ['tunnel_user', 'tunnel_client_id']
  ]) {
    if (present(body[spec]) && present(body[product]) && body[spec] !== body[product]) {
      return `sets ${spec} and ${product} to different values`
    }
  }
  if (body.ttl_minutes === 0 && present(body.expires_at)) {
    return 'has ttl_minutes 0 (no expiry) and an expires_at'
  }
  const fqdn = body.tunnel_fqdn
  const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
  if (
    present(fqdn) &&
    (typeof fqdn !== 'string' ||
      fqdn.length > 253 ||
      !new RegExp(`^${label}(?:\\.${label})*$`).test(fqdn) ||
      /^[\d.]+$/.test(fqdn))
  ) {
    return 'has a tunnel_fqdn that is not a lower-case host name'
  }
  if (
    present(body.append_user_to_subdomain) &&
    typeof body.append_user_to_subdomain !== 'boolean'
  ) {
    return 'has an append_user_to_subdomain that is not true or false'
  }
  const ownership = body.ownership_type
  if (
    present(ownership) &&
    (typeof ownership !== 'string' || !/^[a-z][a-z0-9_-]{0,31}$/.test(ownership))
  ) {
    return 'has an ownership_type that is not a short lower-case word'
  }
  return undefined
}

/** What a success must export and output, computed from the answer as the service sent it. */
function expectedPublication(
  answer: ServiceAnswer,
  project: string
): { env: Record<string, string>; outputs: Record<string, unknown>; port: unknown } | undefined {
  const body = parseBody(answer.body)
  if (!isObject(body)) return undefined
  const token = either(body, 'token', 'tunnel_client_secret')
  const tunnelUser = either(body, 'tunnel_user', 'tunnel_client_id')
  const port = either(body, 'tunnel_port') ?? 2223
  return {
    env: {
      [`${ENV_PREFIX}_TUNNEL_TOKEN`]: token as string,
      [`${ENV_PREFIX}_TUNNEL_USER`]: tunnelUser as string,
      [`${ENV_PREFIX}_TUNNEL_HOST`]: body.tunnel_host as string
    },
    outputs: {
      token,
      'tunnel-user': tunnelUser,
      'client-id': either(body, 'client_id', 'tunnel_client_id', 'tunnel_user'),
      'tunnel-host': body.tunnel_host,
      'expires-at': either(body, 'expires_at') ?? '',
      'ttl-minutes': either(body, 'ttl_minutes') ?? '',
      'project-slug': either(body, 'project_slug') ?? project,
      credential: 'cicd'
    },
    port
  }
}

/** The port as exported matches the port sent, read as a number. */
function samePort(exported: string | undefined, sent: unknown): boolean {
  if (exported === undefined || !/^[1-9]\d{0,4}$/.test(exported)) return false
  const sentNumber = typeof sent === 'number' ? sent : typeof sent === 'string' ? Number(sent) : NaN
  return Number(exported) === sentNumber && sentNumber <= 65535
}

function sameOutput(exported: string | undefined, sent: unknown): boolean {
  return typeof sent === 'number' ? exported === String(sent) : exported === sent
}

function stepProblems(
  step: 'main' | 'post',
  outcome: StepOutcome,
  context: Context,
  allowedMasks: string[]
): string[] {
  const problems: string[] = []
  const lines = runnerLines(outcome)
  // Shorter values are too common to tell a leak from a coincidence.
  const secrets = [...new Set([context.apiKey, ...context.secrets])].filter(s => s.length >= 8)
  lines.forEach((line, i) => {
    const command = runnerCommand(line)
    const isOwnMask =
      command?.name === 'add-mask' && !command.legacy && allowedMasks.includes(command.message)
    if (command && (command.legacy || !INTENDED_COMMANDS.has(command.name))) {
      problems.push(`${step}: line ${i + 1} is a ${command.name} command: ${show(line, 300)}`)
    } else if (command?.name === 'add-mask' && !isOwnMask) {
      problems.push(
        `${step}: line ${i + 1} masks a value nobody sent as a secret: ${show(line, 300)}`
      )
    }
    if (isOwnMask) return
    for (const secret of secrets) {
      if (line.includes(secret)) {
        problems.push(
          `${step}: line ${i + 1} shows the secret ${secret.slice(0, 8)}…: ${show(line, 300)}`
        )
      }
    }
    for (let at = 0; at + 8 <= TOKEN_CORE.length; at++) {
      if (line.includes(TOKEN_CORE.slice(at, at + 8))) {
        problems.push(`${step}: line ${i + 1} shows part of the token: ${show(line, 300)}`)
        break
      }
    }
  })
  for (const secret of secrets) {
    if (outcome.summary.includes(secret)) problems.push(`${step}: the job summary shows a secret`)
    for (const [name, value] of Object.entries(outcome.state)) {
      if (value.includes(secret)) problems.push(`${step}: saved state ${name} holds a secret`)
    }
  }
  const extraState = Object.keys(outcome.state).filter(name => !STATE_NAMES.includes(name))
  if (extraState.length) problems.push(`${step}: extra GITHUB_STATE entries ${extraState}`)
  return problems
}

/** A value for a message: JSON, so hidden characters show, and short. */
function show(value: unknown, max = 80): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > max ? `${text.slice(0, max - 3)}...` : text
}

function messages(outcome: StepOutcome, name: string): string[] {
  return runnerLines(outcome)
    .map(runnerCommand)
    .filter(command => command?.name === name)
    .map(command => command!.message)
}

function errorCount(outcome: StepOutcome): number {
  return messages(outcome, 'error').length
}

export function findProblems(observed: Observed, context: Context): string[] {
  const { main, post } = observed
  const problems: string[] = []
  if (observed.mainThrew !== undefined) {
    problems.push(`main threw instead of failing with one ::error::: ${String(observed.mainThrew)}`)
  }
  if (observed.postThrew !== undefined) {
    problems.push(`post threw instead of warning: ${String(observed.postThrew)}`)
  }
  const masks = [context.apiKey, ...context.secrets]
  problems.push(...stepProblems('main', main, context, masks))
  problems.push(...stepProblems('post', post, context, [context.apiKey]))

  const envNames = Object.keys(main.env)
  const outputNames = Object.keys(main.outputs)
  const issued = issuedCredential(observed.lastAnswer)
  // A throw is a failure too, though a badly reported one (flagged above).
  if (main.failed || observed.mainThrew !== undefined) {
    if (errorCount(main) !== 1)
      problems.push(`main failed with ${errorCount(main)} ::error:: lines`)
    if (envNames.length) problems.push(`main failed but exported ${envNames}`)
    if (outputNames.length) problems.push(`main failed but set outputs ${outputNames}`)
  } else {
    if (errorCount(main) !== 0) problems.push(`main succeeded with ${errorCount(main)} ::error::`)
    const expected =
      observed.lastAnswer && expectedPublication(observed.lastAnswer, context.project)
    const refusal = mustRefuse(observed.lastAnswer)
    if (refusal !== undefined) problems.push(`main accepted an answer that ${refusal}`)
    if (!expected) {
      problems.push('main succeeded although the answer holds no credential object')
    } else {
      if (!issued) {
        problems.push('main accepted a token or tunnel user that is not a clean, non-empty string')
      }
      const env = main.env
      if (envNames.sort().join() !== [...ENV_NAMES].sort().join()) {
        problems.push(`GITHUB_ENV holds ${show(envNames)}, not the four variables`)
      }
      for (const [name, value] of Object.entries(expected.env)) {
        if (env[name] !== value) problems.push(`${name} is ${show(env[name])}, sent ${show(value)}`)
      }
      if (!samePort(env[`${ENV_PREFIX}_TUNNEL_PORT`], expected.port)) {
        problems.push(`the port exported is not the port sent (${show(expected.port)})`)
      }
      if (outputNames.sort().join() !== [...OUTPUT_NAMES].sort().join()) {
        problems.push(`GITHUB_OUTPUT holds ${show(outputNames)}`)
      }
      for (const [name, sent] of Object.entries(expected.outputs)) {
        if (!sameOutput(main.outputs[name], sent)) {
          problems.push(`output ${name} is ${show(main.outputs[name])}, sent ${show(sent)}`)
        }
      }
      if (!samePort(main.outputs['tunnel-port'], expected.port)) {
        problems.push('output tunnel-port is not the port sent')
      }
      for (const [name, value] of [...Object.entries(env), ...Object.entries(main.outputs)]) {
        if (!isClean(value)) problems.push(`${name} holds characters unsafe for the runner`)
      }
      const token = expected.env[`${ENV_PREFIX}_TUNNEL_TOKEN`]
      if (!main.masks.includes(token)) problems.push('the exported token was not masked')
      const user = expected.env[`${ENV_PREFIX}_TUNNEL_USER`]
      const revokedInPost = observed.revokes.some(
        r => r.step === 'post' && isObject(r.body) && r.body.tunnel_user === user
      )
      if (!revokedInPost) problems.push(`post did not revoke the exported user ${show(user)}`)
    }
  }
  const named = issuedUser(observed.lastAnswer)
  if (named !== undefined && main.failed) {
    const revoked = observed.revokes.some(r => isObject(r.body) && r.body.tunnel_user === named)
    if (!revoked) {
      problems.push(
        `the service issued user ${show(named)}, main rejected the answer, and nobody revoked it`
      )
    }
  }

  if (post.failed || errorCount(post) > 0)
    problems.push('post failed with fail-on-revoke-error off')
  if (context.revokeAnswerOk && observed.revokes.some(r => r.step === 'post')) {
    const [warning] = messages(post, 'warning')
    if (warning !== undefined) {
      problems.push(`post warned although revoke-token answered 2xx: ${show(warning, 300)}`)
    }
  }
  return problems
}
