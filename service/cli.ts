/**
 * `npm run service`: starts the stand-in and prints what a person or a script needs.
 * The base URL is printed alone on its line so scripts can pick it up with
 * `grep -m1 '/functions/v1$'`; every other line is `name: value`.
 */
import { parseCliArgs, USAGE, UsageError } from './cli-args.js'
import { startEdge, type RunningEdge } from './edge/caddy.js'
import { startCredentialService, type RunningService, type ServiceOptions } from './server.js'
import { MAX_FORWARDS_PER_USER } from './tunnel/forwards.js'
import { publicHost, publicLabel } from './tunnel/naming.js'

/** The start-up text: the URL alone on its line, then every credential a person may copy. */
function describeService(
  service: RunningService,
  options: ServiceOptions,
  edge: RunningEdge | null
): string[] {
  const { seed } = service
  return [
    'Local credential service: an in-memory stand-in for tests and demos, not the real service.',
    service.baseUrl,
    `admin: ${service.adminUrl}`,
    `api key with cicd:provision (all scopes): ${seed.provisionKey}`,
    `api key without cicd:provision: ${seed.keyWithoutScope}`,
    ...(options.apiKeys ?? []).map(key => `api key (all scopes, from --api-key): ${key}`),
    `api key of a second owner (all scopes; cannot touch the first owner's credentials): ${seed.secondOwnerKey}`,
    `project: ${seed.project}`,
    ...(options.projects ?? [])
      .filter(slug => slug !== seed.project)
      .map(slug => `project (from --project): ${slug}`),
    `project of the second owner: ${seed.secondOwnerProject}`,
    `jwt: ${seed.jwt}`,
    ...(options.jwts ?? []).map(jwt => `jwt (from --jwt): ${jwt}`),
    `tunnel: ${service.tunnelHost}:${service.tunnelPort}`,
    `answer shape: ${service.answerShape}`,
    `public urls: ${publicHost(service.naming, '<name>', '<user>')} (ownership ${service.naming.ownership}, user ${service.naming.appendUser ? 'appended' : 'not appended'})`,
    ...(service.tunnel === null
      ? []
      : [
          `tunnel host key: ${service.tunnel.fingerprint}`,
          `tunnel known_hosts: ${service.tunnel.knownHostsPath}`,
          `tunnel http front: ${service.tunnel.frontUrl} (http://${publicHost(service.naming, '<name>', '<user>')}:${service.tunnel.frontPort}/)`,
          // Alone after its name, so a script can paste it into the action's url-template input.
          `tunnel url-template: ${service.tunnel.urlTemplate}`,
          `tunnel limits: ${options.maxForwardsPerUser ?? MAX_FORWARDS_PER_USER} forwards per tunnel user, ${options.oneSessionPerCredential === true ? 'one session' : 'any number of sessions'} per credential`
        ]),
    ...(edge === null
      ? []
      : [
          `edge: https://127.0.0.1:${edge.port} (https://${publicHost(service.naming, '<name>', '<user>')}:${edge.port}/, Host rewritten to ${publicLabel(service.naming, '<name>', '<user>')}.${edge.internalDomain})`,
          // Alone after their names: NODE_EXTRA_CA_CERTS or ca-file, and url-template.
          `edge ca: ${edge.caFile}`,
          `edge url-template: https://${publicHost(service.naming, '{name}', '{user}')}:${edge.port}`
        ]),
    'Press Ctrl+C to stop.'
  ]
}

async function main(argv: readonly string[]): Promise<number> {
  let command
  try {
    command = parseCliArgs(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`error: ${error.message}\n\n${USAGE}\n`)
    return 2
  }
  if (command.help) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  const { options } = command
  // The command always starts the tunnel stand-in; tests opt in through the option.
  const service = await startCredentialService({ ...options, tunnel: true })
  let edge: RunningEdge | null = null
  if (command.edge) {
    try {
      // The edge serves the public names the answers hand out: `<label>.<tunnel_fqdn>`.
      edge = await startEdge({
        upstreamPort: service.tunnel!.frontPort,
        publicDomain: service.naming.fqdn
      })
    } catch (error) {
      await service.close()
      throw error
    }
  }
  process.stdout.write(`${describeService(service, options, edge).join('\n')}\n`)

  await new Promise<void>(resolve => {
    const stop = (signal: string): void => {
      process.stdout.write(`Received ${signal}, stopping.\n`)
      resolve()
    }
    process.once('SIGINT', () => stop('SIGINT'))
    process.once('SIGTERM', () => stop('SIGTERM'))
  })
  await edge?.stop()
  await service.close()
  return 0
}

main(process.argv.slice(2)).then(
  code => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  }
)
