/** The `tls` option: the same service over https, as the benchmark runs it. */
import { request } from 'node:https'
import {
  makeThrowawayCertificate,
  type ThrowawayCertificate
} from '../../scripts/throwaway-certificate.js'
import { startCredentialService, type RunningService } from '../server.js'

let certificate: ThrowawayCertificate
let service: RunningService

beforeAll(async () => {
  certificate = makeThrowawayCertificate()
  service = await startCredentialService({ tls: { key: certificate.key, cert: certificate.cert } })
})
afterAll(async () => {
  await service?.close()
  certificate?.remove()
})

/** POST over https, trusting `ca` only; resolves the status and parsed body. */
function post(url: string, ca: string | undefined, body: unknown) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        ca,
        headers: { 'X-API-Key': service.seed.provisionKey, 'Content-Type': 'application/json' }
      },
      incoming => {
        let text = ''
        incoming.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode ?? 0, body: JSON.parse(text) as unknown })
        )
      }
    )
    outgoing.on('error', reject).end(JSON.stringify(body))
  })
}

it('serves https base URLs', () => {
  expect(service.baseUrl).toBe(`https://127.0.0.1:${service.port}/functions/v1`)
  expect(service.origin).toBe(`https://127.0.0.1:${service.port}`)
})

it.each(['127.0.0.1', 'localhost'])(
  'provisions over https at %s for a client that trusts the certificate',
  async host => {
    const answer = await post(
      `https://${host}:${service.port}/functions/v1/credential-provision`,
      certificate.cert,
      { project: service.seed.project }
    )
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ token: expect.stringMatching(/^tok_/) })
  }
)

it('is refused by a client that does not trust the certificate', async () => {
  await expect(
    post(`${service.baseUrl}/credential-provision`, undefined, { project: 'demo-app' })
  ).rejects.toThrow(/self-signed certificate/)
})
