/**
 * The URL proof over https to a name whose certificate a throwaway CA signed (a TLS-inspecting
 * proxy's): refused without `ca-file`, proven with it.
 */
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { PROOF_PATH_PREFIX, proofAnswer } from '../../../../src/core/tunnel/protocol.js'
import { proveUrls } from '../../../../src/core/tunnel/main/url-proof.js'
import {
  makeThrowawayCertificate,
  type ThrowawayCertificate
} from '../../../../scripts/throwaway-certificate.js'

const KEY = 'cd'.repeat(32)
let certificate: ThrowawayCertificate
let server: Server
let url: string

beforeAll(async () => {
  certificate = makeThrowawayCertificate()
  server = createServer({ key: certificate.key, cert: certificate.cert }, (request, response) => {
    const path = request.url ?? ''
    const nonce = path.slice(path.lastIndexOf(PROOF_PATH_PREFIX) + PROOF_PATH_PREFIX.length)
    response.writeHead(200, { 'Content-Type': 'text/plain' }).end(proofAnswer(KEY, 'web', nonce))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`
})
afterAll(async () => {
  await new Promise(resolve => server.close(resolve))
  certificate.remove()
})

const prove = (ca?: string) =>
  proveUrls({
    proofKey: KEY,
    urls: { web: url },
    now: () => 0,
    sleep: async () => undefined,
    pauses: [],
    attemptTimeoutMs: 2_000,
    ...(ca !== undefined && { ca })
  })

it('without ca-file, a certificate of an unknown CA fails the proof', async () => {
  const failures = await prove()
  expect(failures).toEqual([
    expect.objectContaining({
      entry: 'web',
      answer: { kind: 'network', detail: expect.stringMatching(/self-signed certificate/) }
    })
  ])
})

it("with ca-file's certificates, the same URL is proven", async () => {
  expect(await prove(certificate.cert)).toEqual([])
})
