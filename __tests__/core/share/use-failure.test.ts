/**
 * explainUseFailure, the one place a `share: use` failure passes through: only a refused login
 * (a tunnel start failure with cause auth) is diagnosed; anything else keeps its own words and
 * asks the service nothing.
 */
import { ExplainedError } from '../../../src/core/errors.js'
import type { CredentialService } from '../../../src/core/service/client.js'
import { explainUseFailure } from '../../../src/core/share/use-failure.js'
import { TunnelStartError } from '../../../src/core/tunnel/main/start-failure.js'

const DETAIL =
  'the tunnel server refused the credential of cicd-7 (All configured authentication methods failed)'
const asked: string[] = []
const listing = (tokens: { tunnelUser: string; status: string }[]) => () =>
  ({
    listTokens: async (apiKey: string) => {
      asked.push(apiKey)
      return tokens
    }
  }) as unknown as CredentialService
const context = (service: () => CredentialService) => ({
  tunnelUser: 'cicd-7',
  apiKey: 'sk_key',
  service,
  label: (name: string) => `input ${name}`
})
beforeEach(() => (asked.length = 0))

it('names one session per credential for a refused login of a token the service lists as active', async () => {
  const error = new TunnelStartError('The tunnel did not start: …', 'auth', DETAIL)
  const explained = await explainUseFailure(
    error,
    context(listing([{ tunnelUser: 'cicd-7', status: 'active' }]))
  )
  expect(explained).toBeInstanceOf(ExplainedError)
  expect((explained as Error).message).toBe(
    `The tunnel did not start: ${DETAIL}. The service lists the token as active, so this server allows one session per credential: set input share to off, and each job provisions its own credential.`
  )
  expect(asked).toEqual(['sk_key'])
})

it('names both causes when the client cannot even be built', async () => {
  const error = new TunnelStartError('The tunnel did not start: …', 'auth', DETAIL)
  const explained = await explainUseFailure(
    error,
    context(() => {
      throw new Error('cannot read ca-file')
    })
  )
  expect((explained as Error).message).toMatch(
    /could not tell whether the token is still active \(cannot read ca-file\), so it is one of two causes: the shared credential was revoked .*: re-run all jobs; or this server allows one session per credential: set input share to off\.$/
  )
})

it.each([
  ['a refused forward', new TunnelStartError('The name may be in use', 'forward', 'refused "web"')],
  ['a tunnel process that died', new TunnelStartError('It died', 'died', 'exit 1')],
  ['any other failure', new ExplainedError('Could not hand the credential to later steps')]
])('passes %s through unchanged, asking nothing', async (_name, error) => {
  const never = () => {
    throw new Error('the service was asked')
  }
  await expect(explainUseFailure(error, context(never))).resolves.toBe(error)
})
