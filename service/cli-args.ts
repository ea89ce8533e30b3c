/**
 * The command line, parsed into service options. Pure, so every flag rule is testable
 * without spawning a process; cli.ts turns a thrown UsageError into exit code 2.
 */
import { ANSWER_SHAPES, isAnswerShape } from './answer-shape.js'
import { ENDPOINT_NAMES } from './endpoints.js'
import { parseFault, type Fault } from './faults.js'
import { isApiKeyFormat } from './keys.js'
import type { ServiceOptions } from './server.js'
import { isHostName, OWNERSHIP_TYPES, type OwnershipType } from './tunnel/naming.js'

export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

export const USAGE = `Usage: npm run service -- [options]

Starts the local credential service (an in-memory stand-in) on 127.0.0.1, with
its tunnel stand-in: SSH on --tunnel-port and an HTTP front on a free port.

Options:
  --port <n>          port to listen on; 0 picks a free one (default 0)
  --api-key <sk_…>    also accept this API key, with every scope (repeatable)
  --project <slug>    also know this project slug (repeatable)
  --jwt <token>       also accept this bearer token as a session (repeatable)
  --tunnel-host <h>   tunnel_host in the credentials handed out (default 127.0.0.1)
  --tunnel-port <n>   SSH port of the tunnel stand-in, also the tunnel_port in
                      the credentials handed out (default: a free port)
  --answer-shape <s>  credential-provision answers in the spec's shape (spec,
                      the default) or the product's (product: tunnel_client_id,
                      tunnel_client_secret, tunnel_fqdn, ownership_type, ...)
  --tunnel-fqdn <d>   domain of the public URLs, tunnel_fqdn (default localhost)
  --ownership <o>     ownership_type: shared (default), dedicated or self-hosted
  --append-user-to-subdomain <true|false>
                      {name}-{user}.<fqdn> or {name}.<fqdn> (default: true for
                      shared, false otherwise)
  --fault <json>      queue a fault before the first request (repeatable), e.g.
                      --fault '{"kind":"500","count":2}'
  --one-session-per-credential
                      refuse the SSH login of a credential that already has
                      a session open (default: several sessions, each with
                      its own names)
  --max-forwards-per-user <n>
                      most forwards one tunnel user holds at once, across
                      all its sessions (default 5)
  --edge              also put Caddy (Debian's caddy package) in front of the
                      HTTP front: https on the public names (<label>.<tunnel
                      fqdn>), as the real server's reference deployment does
  --help              show this text`

const VALUE_FLAGS = [
  '--port',
  '--api-key',
  '--project',
  '--jwt',
  '--tunnel-host',
  '--tunnel-port',
  '--answer-shape',
  '--tunnel-fqdn',
  '--ownership',
  '--append-user-to-subdomain',
  '--max-forwards-per-user',
  '--fault'
] as const

function parsePort(flag: string, value: string, allowZero: boolean): number {
  const port = /^\d+$/.test(value) ? Number(value) : NaN
  const min = allowZero ? 0 : 1
  if (!Number.isInteger(port) || port < min || port > 65535) {
    throw new UsageError(`${flag} must be a whole number from ${min} to 65535, got "${value}"`)
  }
  return port
}

export type CliCommand =
  | { help: true }
  /** `edge`: start the edge proxy (service/edge/) in front of the tunnel's HTTP front. */
  | { help: false; options: ServiceOptions; edge: boolean }

export function parseCliArgs(argv: readonly string[]): CliCommand {
  const apiKeys: string[] = []
  const projects: string[] = []
  const jwts: string[] = []
  const faults: Fault[] = []
  const options: ServiceOptions = { port: 0, apiKeys, projects, jwts, faults }
  let edge = false

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--help' || arg === '-h') return { help: true }
    if (arg === '--edge') {
      edge = true
      continue
    }
    if (arg === '--one-session-per-credential') {
      options.oneSessionPerCredential = true
      continue
    }
    // Both `--port 8080` and `--port=8080`.
    const eq = arg.indexOf('=')
    const flag = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg
    if (!(VALUE_FLAGS as readonly string[]).includes(flag)) {
      throw new UsageError(`Unknown option "${arg}"`)
    }
    let value: string
    if (eq !== -1 && flag !== arg) {
      value = arg.slice(eq + 1)
    } else {
      const next = argv[i + 1]
      if (next === undefined || next.startsWith('--')) {
        throw new UsageError(`${flag} needs a value`)
      }
      value = next
      i++
    }
    switch (flag as (typeof VALUE_FLAGS)[number]) {
      case '--port':
        options.port = parsePort(flag, value, true)
        break
      case '--tunnel-port':
        options.tunnelPort = parsePort(flag, value, false)
        break
      case '--max-forwards-per-user': {
        const limit = /^\d{1,4}$/.test(value) ? Number(value) : NaN
        if (!(limit >= 1)) {
          throw new UsageError(
            `--max-forwards-per-user must be a whole number from 1 to 9999, got "${value}"`
          )
        }
        options.maxForwardsPerUser = limit
        break
      }
      case '--tunnel-host':
        if (value.trim() === '') throw new UsageError('--tunnel-host must not be empty')
        options.tunnelHost = value
        break
      case '--answer-shape':
        if (!isAnswerShape(value)) {
          throw new UsageError(
            `--answer-shape must be ${ANSWER_SHAPES.join(' or ')}, got "${value}"`
          )
        }
        options.answerShape = value
        break
      case '--tunnel-fqdn':
        if (!isHostName(value)) {
          throw new UsageError(`--tunnel-fqdn must be a host name (DNS labels), got "${value}"`)
        }
        options.tunnelFqdn = value.toLowerCase()
        break
      case '--ownership':
        if (!(OWNERSHIP_TYPES as readonly string[]).includes(value)) {
          throw new UsageError(`--ownership must be ${OWNERSHIP_TYPES.join(', ')}, got "${value}"`)
        }
        options.ownership = value as OwnershipType
        break
      case '--append-user-to-subdomain':
        if (value !== 'true' && value !== 'false') {
          throw new UsageError(`--append-user-to-subdomain must be true or false, got "${value}"`)
        }
        options.appendUserToSubdomain = value === 'true'
        break
      case '--api-key':
        if (!isApiKeyFormat(value)) {
          throw new UsageError(
            `--api-key must be sk_ followed by 64 lowercase hexadecimal characters, got "${value}"`
          )
        }
        apiKeys.push(value)
        break
      case '--project':
        if (value.trim() === '') throw new UsageError('--project must not be empty')
        projects.push(value)
        break
      case '--jwt':
        if (value.trim() === '' || /\s/.test(value)) {
          throw new UsageError('--jwt must be a non-empty token without spaces')
        }
        jwts.push(value)
        break
      case '--fault': {
        let parsed: unknown
        try {
          parsed = JSON.parse(value)
        } catch {
          throw new UsageError(`--fault must be a JSON object, got "${value}"`)
        }
        try {
          faults.push(parseFault(parsed, ENDPOINT_NAMES))
        } catch (error) {
          throw new UsageError(`--fault: ${(error as Error).message}`)
        }
        break
      }
    }
  }
  return { help: false, options, edge }
}
