/**
 * The edges of each field of the service's credential answer: where a port, a TTL, a host or a
 * slug stops being accepted, what an absent or null field leaves out, and how much of the token a
 * tunnel user may share before it counts as holding it. Exact shapes: toStrictEqual, since
 * toEqual would pass an `expiresAt: undefined` that the caller then writes out.
 */
import { parseCredential } from '../../../src/core/service/credential.js'
import { holdsSecret } from '../../../src/core/service/answer-secrets.js'

const TOKEN = 'tok_3f9a8b7c6d5e4f3a2b1c'
const RAW = {
  token: TOKEN,
  tunnel_user: 'ab12c',
  client_id: 'client-1',
  tunnel_host: 'tunnel.example.test',
  tunnel_port: 2223
}
const PARSED = {
  token: TOKEN,
  tunnelUser: 'ab12c',
  clientId: 'client-1',
  tunnelHost: 'tunnel.example.test',
  tunnelPort: 2223,
  portDefaulted: false
}
const refusal = (problem: string) => `failed validation: ${problem}. Nothing was exported.`
const BAD_PORT = refusal('tunnel_port is not a whole number from 1 to 65535')

describe('the answer as a whole', () => {
  it('says nothing was exported and where to look', () => {
    expect(() => parseCredential({ ...RAW, token: '' })).toThrow(
      new Error(
        'The credential service sent a credential that failed validation: token is missing. Nothing was exported. ' +
          'Check that base-url points at the credential service; if it does, report this to the service operator.'
      )
    )
  })

  it('refuses an array, even of a valid answer', () => {
    expect(() => parseCredential([RAW])).toThrow(refusal('the body is not a JSON object'))
  })

  it('takes the tunnel user for the client id when the answer names none', () => {
    const { client_id: _clientId, ...withoutClientId } = RAW
    expect(parseCredential(withoutClientId)).toStrictEqual({ ...PARSED, clientId: 'ab12c' })
  })
})

describe('tunnel_port', () => {
  it.each([
    [1, 1],
    [65535, 65535],
    ['7', 7],
    ['65535', 65535],
    ['02223', 2223]
  ])('accepts %j as port %d', (port, expected) => {
    expect(parseCredential({ ...RAW, tunnel_port: port })).toStrictEqual({
      ...PARSED,
      tunnelPort: expected
    })
  })

  it.each([0, 65536, -1, '0', '65536', '0x16', '1e3', ' 22', '22 ', '', true, [2223], {}])(
    'refuses %j',
    port => {
      expect(() => parseCredential({ ...RAW, tunnel_port: port })).toThrow(BAD_PORT)
    }
  )

  it.each([undefined, null])('uses the documented 2223 when the answer has %j', port => {
    expect(parseCredential({ ...RAW, tunnel_port: port })).toStrictEqual({
      ...PARSED,
      tunnelPort: 2223,
      portDefaulted: true
    })
  })

  it('takes the tunnel-port override over the answer, and says it was not defaulted', () => {
    expect(parseCredential({ ...RAW, tunnel_port: null }, { tunnelPort: 22 })).toStrictEqual({
      ...PARSED,
      tunnelPort: 22
    })
  })
})

describe('the optional fields', () => {
  it('leaves out a field the service sent as null, rather than holding undefined', () => {
    expect(
      parseCredential({ ...RAW, expires_at: null, ttl_minutes: null, project_slug: null })
    ).toStrictEqual(PARSED)
  })

  it('keeps each field it checked, under its own name', () => {
    expect(
      parseCredential({
        ...RAW,
        expires_at: '2026-11-23T11:00:00Z',
        ttl_minutes: 1,
        project_slug: 'p'.repeat(200)
      })
    ).toStrictEqual({
      ...PARSED,
      expiresAt: '2026-11-23T11:00:00Z',
      ttlMinutes: 1,
      projectSlug: 'p'.repeat(200)
    })
  })

  it.each([
    [{ ttl_minutes: -5 }, 'ttl_minutes is not a whole number (0: no expiry)'],
    [{ ttl_minutes: 1.5 }, 'ttl_minutes is not a whole number (0: no expiry)'],
    [{ ttl_minutes: 2 ** 53 }, 'ttl_minutes is not a whole number (0: no expiry)'],
    [
      { project_slug: 'p'.repeat(201) },
      'project_slug is not a plain string without log command markers'
    ],
    [
      { project_slug: 'web shop' },
      'project_slug is not a plain string without log command markers'
    ],
    [{ project_slug: 7 }, 'project_slug is not a plain string without log command markers'],
    [{ expires_at: 1764000000 }, 'expires_at is not an ISO 8601 time'],
    // Printed in the summary's Project row: Azure obeys ##vso[ anywhere in a line.
    [
      { project_slug: 'web##vso[task.setvariable variable=SVC_BASE_URL]https://evil.example' },
      'project_slug is not a plain string without log command markers'
    ],
    [
      { project_slug: '##[group]x' },
      'project_slug is not a plain string without log command markers'
    ],
    [
      { project_slug: '::add-mask::x' },
      'project_slug is not a plain string without log command markers'
    ]
  ])('refuses %j', (fields, problem) => {
    expect(() => parseCredential({ ...RAW, ...fields })).toThrow(refusal(problem))
  })
})

describe('tunnel_host', () => {
  const missing = refusal(
    'tunnel_host is missing; set the tunnel-host input if your tunnel server is self-hosted'
  )
  it.each([undefined, null, ''])('asks for the tunnel-host input when the answer has %j', host => {
    expect(() => parseCredential({ ...RAW, tunnel_host: host })).toThrow(missing)
  })

  it('takes the tunnel-host override over the answer, and checks it the same way', () => {
    expect(parseCredential({ ...RAW, tunnel_host: null }, { tunnelHost: '::1' })).toStrictEqual({
      ...PARSED,
      tunnelHost: '::1'
    })
    expect(() => parseCredential(RAW, { tunnelHost: 'h:22' })).toThrow(
      refusal('tunnel_host is not a bare hostname or IP address')
    )
  })

  it('accepts a host name of 253 characters, and refuses one of 254', () => {
    const host = (length: number) => `${'a'.repeat(63)}.`.repeat(4).slice(0, length - 1) + 'b'
    expect(parseCredential({ ...RAW, tunnel_host: host(253) }).tunnelHost).toHaveLength(253)
    expect(() => parseCredential({ ...RAW, tunnel_host: host(254) })).toThrow(
      refusal('tunnel_host is not a bare hostname or IP address')
    )
  })
})

describe('a tunnel user that shares part of the token', () => {
  const holds = refusal('tunnel_user holds the token, or a long piece of it')
  // Half of the 24-character token is 12 characters.
  it('refuses a user that is exactly the shared half of the token', () => {
    expect(() => parseCredential({ ...RAW, tunnel_user: TOKEN.slice(4, 16) })).toThrow(holds)
    expect(() => parseCredential({ ...RAW, tunnel_user: TOKEN.slice(12) })).toThrow(holds)
  })

  it('accepts a user that shares one character less than half', () => {
    expect(parseCredential({ ...RAW, tunnel_user: TOKEN.slice(4, 15) }).tunnelUser).toBe(
      TOKEN.slice(4, 15)
    )
  })

  it('counts a piece from 8 characters for a secret of 8 to 16', () => {
    const secret = 'k7Qp2Zx9Lm'
    expect(holdsSecret('user-k7Qp2Zx9', [secret])).toBe(true)
    expect(holdsSecret('user-k7Qp2Zx', [secret])).toBe(false)
    expect(holdsSecret('Qp2Zx9Lm', [secret])).toBe(true)
    expect(holdsSecret('bcdefghiX', ['abcdefghi'])).toBe(true)
    expect(holdsSecret('bcdefghX', ['abcdefghi'])).toBe(false)
  })

  it('looks for the free credential secret as well as the token', () => {
    expect(() =>
      parseCredential({
        ...RAW,
        token: undefined,
        tunnel_client_secret: 'Zr8Kq1Vw5Nb3',
        tunnel_user: 'Zr8Kq1Vw5Nb3'
      })
    ).toThrow(holds)
  })
})
