/**
 * The keeper against the stand-in answering in the product's shape, on a dedicated server: the
 * login comes from `tunnel_client_id` and `tunnel_client_secret`, and the entry is served at
 * `{name}.{tunnel_fqdn}`, the URL such a server hands out.
 */
import { request } from 'node:http'
import {
  startHttpTunnel,
  startTestApp,
  type HttpTunnel,
  type TestApp
} from '../../../helpers/http-tunnel.js'
import { cleanUp } from '../../../helpers/ssh-stand-in.js'

let app: TestApp
let tunnel: HttpTunnel

beforeAll(async () => {
  app = await startTestApp()
  tunnel = await startHttpTunnel(
    [{ name: 'web', host: '127.0.0.1', port: app.port }],
    'none',
    {},
    {},
    { answerShape: 'product', ownership: 'dedicated', tunnelFqdn: 'team.localhost' }
  )
})
afterAll(async () => {
  await cleanUp()
  await tunnel.service.close()
  await app.close()
})

it('serves the entry at {name}.{tunnel_fqdn} with the login of the product-shaped answer', async () => {
  expect(tunnel.hostFor('web')).toBe(`web.team.localhost:${tunnel.frontPort}`)
  const body = await new Promise<string>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: tunnel.frontPort,
        path: '/hello',
        agent: false,
        headers: { host: tunnel.hostFor('web') }
      },
      res => {
        let text = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve(text))
      }
    )
    req.on('error', reject)
    req.end()
  })
  expect(body).toBe(`GET /hello host=${tunnel.hostFor('web')} body=0`)
  expect(tunnel.service.tunnel!.sessions()).toEqual([
    expect.objectContaining({ user: tunnel.user, forwards: ['web'] })
  ])
})
