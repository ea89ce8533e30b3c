/**
 * A proxy in front of the local credential service that reshapes credential-provision's answer
 * on its way (the product's field names, tunnel_fqdn, append_user_to_subdomain, ttl_minutes 0),
 * so a test sees the product's answer while the stand-in's tunnel still accepts the credential.
 * It records each request's path and body.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Answer = Record<string, unknown>

export interface AnswerProxy {
  /** The base URL to give as base-url: the service's, through the proxy. */
  baseUrl: string
  /** How the next answers are reshaped; the identity keeps the spec's shape. */
  reshape: (answer: Answer) => Answer
  requests: { path: string; body: unknown }[]
  close(): Promise<void>
}

export async function startAnswerProxy(origin: string): Promise<AnswerProxy> {
  const proxy: Omit<AnswerProxy, 'baseUrl' | 'close'> = { reshape: answer => answer, requests: [] }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', chunk => chunks.push(chunk as Buffer))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const path = request.url ?? '/'
      proxy.requests.push({ path, body: body === '' ? undefined : JSON.parse(body) })
      void fetch(`${origin}${path}`, {
        method: request.method,
        headers: { ...(request.headers as Record<string, string>), host: new URL(origin).host },
        ...(body !== '' && { body })
      }).then(async answer => {
        let text = await answer.text()
        if (path.endsWith('/credential-provision') && answer.ok) {
          text = JSON.stringify(proxy.reshape(JSON.parse(text) as Answer))
        }
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text)
      })
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return Object.assign(proxy, {
    baseUrl: `http://127.0.0.1:${port}/functions/v1`,
    close: () => new Promise<void>(resolve => server.close(() => resolve()))
  })
}

/** credential-provision's answer as the product's own action reads it, plus `fields`. */
export const productShape =
  (fqdn: string, fields: Answer) =>
  ({ token, tunnel_user, client_id: _clientId, expires_at: _at, ...rest }: Answer): Answer => ({
    ...rest,
    tunnel_client_id: tunnel_user,
    tunnel_client_secret: token,
    tunnel_fqdn: fqdn,
    ttl_minutes: 0,
    ...fields
  })
