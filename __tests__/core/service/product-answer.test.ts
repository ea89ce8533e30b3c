/**
 * The answer in the product's shape (issue 27): `tunnel_client_id` and `tunnel_client_secret`,
 * `tunnel_fqdn`, `ownership_type`, `append_user_to_subdomain`, and `ttl_minutes: 0` for a
 * credential without expiry. Each field is checked like the spec's; an answer that says two things
 * at once is refused.
 */
import { parseCredential } from '../../../src/core/service/credential.js'
import { issuedCredential } from '../../../src/core/service/issued-credential.js'

const SECRET = 'tcs_9d8c7b6a5f4e3d2c1b0a'
/** As the product's own action reads it from credential-provision. */
const PRODUCT = {
  tunnel_client_id: 'cid42',
  tunnel_client_secret: SECRET,
  tunnel_fqdn: 'cicd.eu1.tunnels.example',
  tunnel_host: 's1.eu1.tunnels.example',
  tunnel_port: 2223,
  ownership_type: 'shared',
  append_user_to_subdomain: true,
  expires_at: '2026-11-28T07:00:00Z',
  ttl_minutes: 60
}
const FQDN = 'tunnel_fqdn is not a lower-case host name (an IP address cannot hold names)'
const OWNERSHIP =
  'ownership_type is not a short lower-case word (such as shared, dedicated, self-hosted)'
const refusal = (problem: string) =>
  `The credential service sent a credential that failed validation: ${problem}. Nothing was exported.`

describe('an answer in the product shape', () => {
  it('is read whole: the login, the URL fields and the ownership', () => {
    expect(parseCredential(PRODUCT)).toStrictEqual({
      token: SECRET,
      tunnelUser: 'cid42',
      clientId: 'cid42',
      tunnelHost: 's1.eu1.tunnels.example',
      tunnelPort: 2223,
      portDefaulted: false,
      expiresAt: '2026-11-28T07:00:00Z',
      ttlMinutes: 60,
      tunnelFqdn: 'cicd.eu1.tunnels.example',
      ownershipType: 'shared',
      appendUserToSubdomain: true
    })
  })

  it('reads false for append_user_to_subdomain, and null fields as absent', () => {
    const parsed = parseCredential({
      ...PRODUCT,
      append_user_to_subdomain: false,
      ownership_type: null,
      tunnel_fqdn: null
    })
    expect(parsed.appendUserToSubdomain).toBe(false)
    expect('ownershipType' in parsed).toBe(false)
    expect('tunnelFqdn' in parsed).toBe(false)
  })

  it('accepts an ownership type it does not know, since nothing depends on it', () => {
    expect(parseCredential({ ...PRODUCT, ownership_type: 'team_pool-2' }).ownershipType).toBe(
      'team_pool-2'
    )
  })

  it.each([
    ['tunnel_fqdn', '192.0.2.7', FQDN],
    ['tunnel_fqdn', 'CICD.eu1.example', FQDN],
    ['tunnel_fqdn', 'cicd.eu1.example.', FQDN],
    ['tunnel_fqdn', 'cicd.eu1.example:443', FQDN],
    ['tunnel_fqdn', 'https://cicd.example', FQDN],
    ['tunnel_fqdn', 'a_b.example', FQDN],
    ['tunnel_fqdn', '', FQDN],
    ['tunnel_fqdn', `${'a'.repeat(64)}.example`, FQDN],
    ['tunnel_fqdn', 'cicd.example\n::stop-commands::x', FQDN],
    ['tunnel_fqdn', 7, FQDN],
    ['tunnel_fqdn', ['cicd.example'], FQDN],
    ['append_user_to_subdomain', 'true', 'append_user_to_subdomain is not true or false'],
    ['append_user_to_subdomain', 1, 'append_user_to_subdomain is not true or false'],
    ['append_user_to_subdomain', 'false', 'append_user_to_subdomain is not true or false'],
    ['ownership_type', 'Shared', OWNERSHIP],
    ['ownership_type', 'shared\n::error::x', OWNERSHIP],
    ['ownership_type', '##vso[task.complete]', OWNERSHIP],
    ['ownership_type', 's'.repeat(33), OWNERSHIP],
    ['ownership_type', '', OWNERSHIP],
    ['ownership_type', true, OWNERSHIP]
  ])('refuses %s %j, and still names the credential to revoke', (field, value, problem) => {
    const answer = { ...PRODUCT, [field]: value }
    expect(() => parseCredential(answer)).toThrow(refusal(problem))
    expect(issuedCredential(answer)?.tunnelUser).toBe('cid42')
  })
})

describe('both spellings', () => {
  it('accepts both spellings when they agree', () => {
    const parsed = parseCredential({ ...PRODUCT, tunnel_user: 'cid42', token: SECRET })
    expect(parsed).toMatchObject({ tunnelUser: 'cid42', token: SECRET })
  })

  it.each([
    [{ tunnel_user: 'other' }, 'tunnel_user and tunnel_client_id differ', 'other'],
    [{ token: 'tok_other_secret_1' }, 'token and tunnel_client_secret differ', 'cid42']
  ])('refuses %j beside the other spelling, naming neither value', (fields, problem, revoked) => {
    const answer = { ...PRODUCT, ...fields }
    expect(() => parseCredential(answer)).toThrow(
      refusal(`${problem}, so the answer names two credentials`)
    )
    expect(() => parseCredential(answer)).not.toThrow(SECRET)
    expect(() => parseCredential(answer)).not.toThrow('tok_other')
    // The credential the service issued is still revoked, by the spec's spelling of the user.
    expect(issuedCredential(answer)?.tunnelUser).toBe(revoked)
  })
})

describe('no expiry', () => {
  it('reads ttl_minutes 0 without expires_at as a credential that does not expire', () => {
    const { expires_at: _at, ...unending } = { ...PRODUCT, ttl_minutes: 0 }
    const parsed = parseCredential(unending)
    expect(parsed.ttlMinutes).toBe(0)
    expect('expiresAt' in parsed).toBe(false)
  })

  it('reads an answer without expires_at as one without expiry', () => {
    expect('expiresAt' in parseCredential({ ...PRODUCT, expires_at: null })).toBe(false)
  })

  it('refuses ttl_minutes 0 beside an end time: the answer says two things', () => {
    expect(() => parseCredential({ ...PRODUCT, ttl_minutes: 0 })).toThrow(
      refusal('ttl_minutes is 0 (no expiry), yet expires_at gives an end')
    )
  })
})
