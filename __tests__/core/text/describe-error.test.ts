import { describeUnexpected } from '../../../src/core/text/describe-error.js'

describe('describeUnexpected', () => {
  it("gives an error's message, whatever realm made it, with credentials redacted", () => {
    expect(describeUnexpected(new Error('boom'))).toBe('boom')
    // What Node's own errors look like from inside a test sandbox: no `instanceof Error` there.
    expect(describeUnexpected({ name: 'Error', message: 'ENOENT: no such file' })).toBe(
      'ENOENT: no such file'
    )
    expect(describeUnexpected(`leaked tok_${'a'.repeat(48)}`)).toBe('leaked ***')
    expect(describeUnexpected(null)).toBe('null')
  })
})

describe('describeUnexpected keeps what explains a failure', () => {
  it('keeps the file path of an ENOENT or EACCES error', () => {
    const path = '/home/runner/work/_temp/provision-tunnel-credentials-Xy9abQ/id_ed25519'
    expect(
      describeUnexpected({ message: `ENOENT: no such file or directory, open '${path}'` })
    ).toBe(`ENOENT: no such file or directory, open '${path}'`)
    expect(
      describeUnexpected({
        message: `EACCES: permission denied, rmdir '/home/runner/work/_temp/x/y'`
      })
    ).toBe(`EACCES: permission denied, rmdir '/home/runner/work/_temp/x/y'`)
    expect(describeUnexpected({ message: String.raw`EPERM, unlink 'D:\a\_temp\run-41\key'` })).toBe(
      String.raw`EPERM, unlink 'D:\a\_temp\run-41\key'`
    )
  })

  it('still hides credentials, in a path or around it', () => {
    const apiKey = `sk_${'0123456789abcdef'.repeat(4)}`
    const token = `tok_${'Zq3'.repeat(12)}`
    const base64 = 'q8Vw3Zr+T1/Lk9PmXa2bYc7Ud0EfGhJ4nRsWoQ=='
    const shown = describeUnexpected({
      message:
        `failed with ${apiKey} and ${token} for https://user:hunter2@proxy.test/x, ` +
        `Authorization: Bearer eyJhbGciOi.payload.sig, key ${base64}, ` +
        `file /tmp/${token}/x and /tmp/q8Vw3Zr1T1Lk9PmXa2bYc7Ud0EfGhJ4n/y`
    })
    for (const secret of [apiKey, token, 'hunter2', 'eyJhbGciOi', base64, 'Zq3Zq3', 'q8Vw3Zr1']) {
      expect(shown).not.toContain(secret)
    }
    expect(shown).toContain('https://***@proxy.test/x')
    expect(shown).toContain('file /tmp/***/x and /tmp/***/y')
  })

  it('hides a private key block', () => {
    const pem =
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----'
    expect(describeUnexpected({ message: `bad key ${pem} here` })).toBe('bad key *** here')
  })
})

describe('describeUnexpected, each kind of credential it hides', () => {
  const shown = (message: string) => describeUnexpected({ message })
  it.each([
    ['Authorization: Bearer hunter2', 'Authorization: Bearer ***'],
    ['basic dXNlcjpw, then', 'basic ***, then'],
    ['Bearer   hunter2', 'Bearer ***'],
    ['X-API-Key: hunter2', 'X-API-Key: ***'],
    ['x-api-key hunter2;', 'x-api-key ***;'],
    ['X-API-Key:hunter2', 'X-API-Key: ***'],
    ['https://user:hunter2@proxy.test/x', 'https://***@proxy.test/x'],
    ["get 'http://u:hunter2@h.test'", "get 'http://***@h.test'"],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow cut', '***'],
    [
      'key -----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY----- x',
      'key *** x'
    ]
  ])('%j as %j', (message, expected) => {
    expect(shown(message)).toBe(expected)
  })
})

describe('describeUnexpected, the paths it keeps', () => {
  const shown = (message: string) => describeUnexpected({ message })
  it.each([
    // A hex folder name, which the plain redaction would hide as credential-shaped.
    "open '/deadbeef12/key'",
    "open '../deadbeef12/x'",
    "open './deadbeef12'",
    "open '~/deadbeef12'",
    "open '/tmp/deadbeef12'",
    "rmdir '/tmp/deadbeef12/'",
    String.raw`unlink 'C:\deadbeef12\key'`,
    `open /tmp/${'x'.repeat(40)}/y`,
    'open /tmp/abcdefghij1234567/x',
    'open /tmp/ABCDEFGHIJ1234567/x',
    'open /tmp/AbcdefghijKlmnopq/x',
    // tok_ and sk_ count only at a segment's start: a folder name may hold them.
    'open /tmp/task_sk_notes/x'
  ])('keeps %s', message => {
    expect(shown(message)).toBe(message)
  })

  it.each([
    ['open /tmp/tok_abc/x', 'open /tmp/***/x'],
    ['open /tmp/sk_a/x', 'open /tmp/***/x'],
    [`open /cache/${'0123456789abcdef'.repeat(2)}/x`, 'open /cache/***/x'],
    ['open /tmp/Ab1defghijklmnopq/x', 'open /tmp/***/x'],
    ['open /tmp/x-Ab1defghijklmnopq.d/x', 'open /tmp/***/x']
  ])('hides the credential-shaped segment of %s', (message, expected) => {
    expect(shown(message)).toBe(expected)
  })

  it('takes no path from within a base64 run', () => {
    expect(shown('key q8Vw3Zr+T1/Lk9PmXa2bYc7Ud0EfGhJ4nRsWoQ==')).toBe('key ***')
  })
})
