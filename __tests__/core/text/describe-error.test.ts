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
