import {
  openSealedCredential,
  sealCredential,
  ShareRefusal,
  type ShareBinding
} from '../../../src/core/share/sealed-credential.js'

const API_KEY = `sk_${'ab12'.repeat(16)}`
const BINDING: ShareBinding = {
  system: 'github',
  repository: 'octo/web-shop',
  runId: '4242',
  project: 'web-shop'
}
const PAYLOAD = {
  token: 'tok_secret-value-123',
  tunnel_user: 'u1',
  expires_at: '2030-01-01T00:00:00Z'
}

function refusal(run: () => unknown): ShareRefusal {
  try {
    run()
  } catch (error) {
    if (error instanceof ShareRefusal) return error
    throw error
  }
  throw new Error('expected a refusal')
}

describe('sealed credential', () => {
  it('opens with the same API key and binding, and reads as what was sealed', () => {
    const blob = sealCredential(PAYLOAD, API_KEY, BINDING)
    expect(blob).toMatch(/^ptc1\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(openSealedCredential(blob, API_KEY, BINDING)).toEqual(PAYLOAD)
  })

  it('seals differently each time (fresh salt and IV)', () => {
    expect(sealCredential(PAYLOAD, API_KEY, BINDING)).not.toBe(
      sealCredential(PAYLOAD, API_KEY, BINDING)
    )
  })

  it.each([
    ['another run', { runId: '4243' }, /another run, not run 4243 of octo\/web-shop/],
    ['another repository', { repository: 'octo/other' }, /another repository, not octo\/other/],
    ['another project', { project: 'other' }, /another project, not "other"/],
    ['another CI system', { system: 'gitlab' }, /another CI system/]
  ])('refuses a blob from %s, naming it', (_, change, message) => {
    const blob = sealCredential(PAYLOAD, API_KEY, BINDING)
    const error = refusal(() => openSealedCredential(blob, API_KEY, { ...BINDING, ...change }))
    expect(error.reason).toBe('other-run')
    expect(error.message).toMatch(message)
  })

  it('refuses another API key as it refuses tampering', () => {
    const blob = sealCredential(PAYLOAD, API_KEY, BINDING)
    const error = refusal(() => openSealedCredential(blob, `sk_${'cd34'.repeat(16)}`, BINDING))
    expect(error.reason).toBe('tampered')
  })

  it('refuses a blob with any one character of its ciphertext changed', () => {
    const blob = sealCredential(PAYLOAD, API_KEY, BINDING)
    const at = blob.length - 5
    const changed = blob.slice(0, at) + (blob[at] === 'A' ? 'B' : 'A') + blob.slice(at + 1)
    expect(refusal(() => openSealedCredential(changed, API_KEY, BINDING)).reason).toBe('tampered')
  })

  it('refuses a binding rewritten in clear to match another run', () => {
    const other = { ...BINDING, runId: '1' }
    const [prefix, , ...rest] = sealCredential(PAYLOAD, API_KEY, other).split('.')
    const header = Buffer.from(
      JSON.stringify({
        v: 1,
        system: 'github',
        repository: 'octo/web-shop',
        run: '4242',
        project: 'web-shop'
      })
    ).toString('base64url')
    const forged = [prefix, header, ...rest].join('.')
    expect(refusal(() => openSealedCredential(forged, API_KEY, BINDING)).reason).toBe('tampered')
  })

  it.each(['', 'ptc1', 'ptc2.a.b.c.d', 'ptc1.!!.a.b.c', `ptc1.${'a'.repeat(20000)}`])(
    'refuses a value that is not a sealed credential (case %#)',
    blob => {
      const error = refusal(() => openSealedCredential(blob, API_KEY, BINDING))
      expect(error.reason).toBe('malformed')
      expect(error.message).not.toContain(blob.slice(0, 10) || 'never')
    }
  )
})
