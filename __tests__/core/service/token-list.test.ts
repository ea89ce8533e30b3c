/**
 * GET user-tokens-list through the client: the request it sends, and the answer checked as an
 * answer is, so that a list that does not say whose each token is and its status is refused
 * rather than read as "not listed". Messages name the fault, never a value from the list.
 */
import nock from 'nock'
import { useNock } from '../../helpers/nock-lifecycle.js'

// nock must patch http before the client's HTTP library loads.
const { CredentialService, ServiceError } = await import('../../../src/core/service/client.js')

useNock(nock)
const ORIGIN = 'https://svc.example.test'
const API_KEY = `sk_${'c0ffee00'.repeat(8)}`
const service = new CredentialService({
  baseUrl: `${ORIGIN}/functions/v1`,
  maxAttempts: 1,
  timeoutSeconds: 5,
  sleep: async () => undefined,
  random: () => 0.5
})

async function failure(answer: unknown): Promise<InstanceType<typeof ServiceError>> {
  nock(ORIGIN)
    .get('/functions/v1/user-tokens-list')
    .reply(200, answer as nock.Body)
  try {
    await service.listTokens(API_KEY)
  } catch (error) {
    if (error instanceof ServiceError) return error
    throw error
  }
  throw new Error('expected the answer to be refused')
}

it('asks with the API key in its header, and reads whose each token is and its status', async () => {
  const scope = nock(ORIGIN, { reqheaders: { 'x-api-key': API_KEY } })
    .get('/functions/v1/user-tokens-list')
    .reply(200, {
      tokens: [
        { id: 'a', tunnel_user: 'cicd-1', status: 'active', tunnel_type: 'cicd', usage_count: 3 },
        { id: 'b', tunnel_user: 'cicd-2', status: 'revoked', tunnel_type: 'cicd' }
      ]
    })
  await expect(service.listTokens(API_KEY)).resolves.toEqual([
    { tunnelUser: 'cicd-1', status: 'active' },
    { tunnelUser: 'cicd-2', status: 'revoked' }
  ])
  expect(scope.isDone()).toBe(true)
})

it('reads an empty list as empty', async () => {
  nock(ORIGIN).get('/functions/v1/user-tokens-list').reply(200, { tokens: [] })
  await expect(service.listTokens(API_KEY)).resolves.toEqual([])
})

it.each([
  ['no tokens list', { keys: [] }, 'it holds no tokens list'],
  ['a list that is not an array', { tokens: 'tok_leaked-value-1234' }, 'it holds no tokens list'],
  ['an array alone', [], 'it holds no tokens list'],
  ['an entry that is not an object', { tokens: ['tok_leaked-value-1234'] }, 'entry 1 has'],
  [
    'an entry without a status',
    { tokens: [{ tunnel_user: 'a', status: 'active' }, { tunnel_user: 'tok_leaked-value-1234' }] },
    'entry 2 has no tunnel_user or status text'
  ],
  ['a status that is not text', { tokens: [{ tunnel_user: 'a', status: 1 }] }, 'entry 1 has']
])('refuses %s as an unusable answer, quoting nothing of it', async (_name, answer, why) => {
  const error = await failure(answer)
  expect(error.kind).toBe('bad-response')
  expect(error.endpoint).toBe('user-tokens-list')
  expect(error.message).toContain(why)
  expect(error.message).not.toContain('leaked')
})

it('throws a 403 as the service said it, for the caller to explain', async () => {
  nock(ORIGIN)
    .get('/functions/v1/user-tokens-list')
    .reply(403, { error: 'API key lacks the token:read scope', code: 'FORBIDDEN' })
  const error = await service.listTokens(API_KEY).catch((caught: unknown) => caught)
  expect(error).toBeInstanceOf(ServiceError)
  expect((error as InstanceType<typeof ServiceError>).status).toBe(403)
  expect((error as Error).message).toBe('HTTP 403 FORBIDDEN: API key lacks the token:read scope')
})
