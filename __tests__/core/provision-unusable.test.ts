/**
 * A credential the service issued and main could not use: main revokes it at once, or leaves a
 * record that makes post revoke it; and what the service echoes (a token, a log command marker)
 * never shows. Through the in-memory host.
 */
import nock from 'nock'
import { API_KEY } from '../helpers/in-process-step.js'
import { linesLeaking, provisionWith, revokeWith } from '../helpers/memory-step.js'
import { useNock } from '../helpers/nock-lifecycle.js'
import { ORIGIN, PATH, REVOKE, TOKEN, CREDENTIAL, INPUTS } from '../helpers/provision-answer.js'

useNock(nock)

const run = (inputs: Record<string, string> = INPUTS) => provisionWith(inputs)

describe('main, a credential issued and then refused', () => {
  const BAD_HOST = { ...CREDENTIAL, tunnel_host: undefined }

  it('revokes it at once, and post has nothing left to do', async () => {
    nock(ORIGIN).post(PATH).reply(200, BAD_HOST)
    const revoke = nock(ORIGIN, { reqheaders: { 'x-api-key': API_KEY } })
      .post(REVOKE, { tunnel_user: 'ab12c' })
      .reply(200, { success: true })
    const step = await run()
    expect(revoke.isDone()).toBe(true)
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(/tunnel_host is missing/)
    expect(step.infos).toContain(
      'Revoked the credential of tunnel user ab12c, which this step could not use.'
    )
    expect(step.saved.credential).toBe('')
    expect(linesLeaking(step, TOKEN)).toEqual([])
  })

  it('leaves state that makes post revoke it, even with revoke: false, when the revoke fails', async () => {
    nock(ORIGIN).post(PATH).reply(200, BAD_HOST)
    nock(ORIGIN).post(REVOKE).reply(403, { error: 'no', code: 'FORBIDDEN' })
    const main = await run({ ...INPUTS, revoke: 'false' })
    expect(main.errors).toHaveLength(1)
    expect(
      main.lines.some(line =>
        /^Could not revoke .* ab12c yet .*revoking when the job ends tries/.test(line)
      )
    ).toBe(true)
    expect(JSON.parse(main.saved.credential)).toMatchObject({ tunnelUser: 'ab12c', rejected: true })

    const revoke = nock(ORIGIN).post(REVOKE, { tunnel_user: 'ab12c' }).reply(200, {})
    const post = await revokeWith({ ...INPUTS, revoke: 'false' }, main.saved)
    expect(revoke.isDone()).toBe(true)
    expect(post.infos).toContain('Revoked the tunnel token of user ab12c.')
  })

  it('revokes the user of an answer whose token fails its own checks', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...CREDENTIAL, token: 'tok_\ud800' })
    const revoke = nock(ORIGIN).post(REVOKE, { tunnel_user: 'ab12c' }).reply(200, {})
    const step = await run()
    expect(step.errors[0]).toMatch(/token is not well-formed Unicode/)
    expect(revoke.isDone()).toBe(true)
    expect(step.saved).toEqual({ credential: '' })
  })
})

describe('main, gaps the property-based suite found', () => {
  const legacyCommands = (lines: string[]) => lines.filter(line => line.includes('##['))
  const tokenParts = (lines: string[]) => lines.filter(line => /tok_|3f9a8b7c|b7c6d5e4/.test(line))

  it("hides a token the service echoes in a non-2xx answer's error", async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(301, { error: `=token ${TOKEN} refused` })
    const step = await run()
    expect(step.errors).toEqual([
      'The credential service answered credential-provision with an unexpected status (301). The service said: =token *** refused. Check input base-url.'
    ])
    expect(tokenParts(step.lines)).toEqual([])
  })

  it("hides a token the service echoes in a retried answer's code", async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(408, { code: `invalid token ${TOKEN}` })
      .post(PATH)
      .reply(200, CREDENTIAL)
    const step = await run()
    expect(step.lines).toContain(
      'Attempt 1 of 3 failed (HTTP 408 invalid token ***); retrying in 0.8 s.'
    )
    expect(tokenParts(step.lines)).toEqual([])
  })

  it('escapes ##[ in what the service said, so the runner does not stop reading commands', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(500, { error: '##[stop-commands]p' })
      .post(PATH)
      .reply(200, CREDENTIAL)
    const step = await run()
    expect(step.lines).toContain(
      'Attempt 1 of 3 failed (HTTP 500: \\u0023#[stop-commands]p); retrying in 0.8 s.'
    )
    expect(legacyCommands(step.lines)).toEqual([])
  })

  it.each(['project', 'environment'])('refuses ##[ in %s and sends nothing', async name => {
    const step = await run({ ...INPUTS, [name]: '##[add-mask]xstaging' })
    expect(step.errors).toEqual([
      `Input ${name} is "\\u0023#[add-mask]xstaging": it holds "#" followed by "#[", which the log reader of a CI system obeys as a command anywhere in a line. Remove it.`
    ])
    expect(legacyCommands(step.lines)).toEqual([])
  })

  it('refuses a tunnel user holding ##[, revokes it, and prints it escaped', async () => {
    const user = 'ab12c##[add-mask]x'
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...CREDENTIAL, tunnel_user: user })
    nock(ORIGIN).post(REVOKE, { tunnel_user: user }).reply(500, { error: 'down' })
    const step = await run({ ...INPUTS, 'max-attempts': '1' })
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(/tunnel_user holds a log command marker/)
    expect(step.env).toEqual({})
    expect(JSON.parse(step.saved.credential)).toMatchObject({ tunnelUser: user, rejected: true })
    expect(
      step.lines.some(line =>
        line.startsWith(
          'Could not revoke the credential of tunnel user ab12c\\u0023#[add-mask]x yet'
        )
      )
    ).toBe(true)
    expect(legacyCommands(step.lines)).toEqual([])

    nock(ORIGIN).post(REVOKE, { tunnel_user: user }).reply(200, {})
    const post = await revokeWith(INPUTS, step.saved)
    expect(post.lines).toContain('Revoked the tunnel token of user ab12c\\u0023#[add-mask]x.')
    expect(legacyCommands(post.lines)).toEqual([])
  })

  it('refuses a token sent again as the tunnel user, revokes it at once, and never saves or prints it', async () => {
    const { tunnel_user: _user, ...rest } = CREDENTIAL
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...rest, tunnel_client_id: TOKEN })
    const revoke = nock(ORIGIN).post(REVOKE, { tunnel_user: TOKEN }).reply(200, {})
    const step = await run()
    expect(revoke.isDone()).toBe(true)
    expect(step.errors).toEqual([expect.stringContaining('tunnel_user holds the token')])
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    expect(step.summaries).toEqual([])
    expect(step.lines).toContain(
      'Revoked the credential of a tunnel user that holds the token, which this step could not use.'
    )
    expect(Object.values(step.saved).filter(value => value.includes(TOKEN))).toEqual([])
    expect(linesLeaking(step, TOKEN)).toEqual([])
  })

  it('says a token-holding user it could not revoke stays valid, since it cannot be saved', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...CREDENTIAL, tunnel_user: `u${TOKEN}` })
    nock(ORIGIN).post(REVOKE).reply(403, { error: 'no', code: 'FORBIDDEN' })
    const step = await run()
    expect(step.errors).toHaveLength(1)
    expect(step.warnings).toEqual([
      expect.stringMatching(
        /^Could not revoke the credential of a tunnel user that holds the token \(.*\)\. It cannot be saved for revoking when the job ends, so it stays valid until it expires\.$/
      )
    ])
    expect(step.saved).toEqual({})
    expect(linesLeaking(step, TOKEN)).toEqual([])
  })

  it('refuses a tunnel user that is the token with one character slipped in, and never prints it', async () => {
    const user = 't=ok_3f9a8b7c6d5e4f3a2b1c'
    const { tunnel_user: _user, ...rest } = CREDENTIAL
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...rest, tunnel_client_id: user })
    const revoke = nock(ORIGIN).post(REVOKE, { tunnel_user: user }).reply(200, {})
    const step = await run()
    expect(revoke.isDone()).toBe(true)
    expect(step.errors).toEqual([
      expect.stringContaining('tunnel_user holds the token, or a long piece of it')
    ])
    expect(tokenParts(step.lines)).toEqual([])
    expect(step.saved).toEqual({ credential: '' })
  })

  it('refuses a token sent again as the client id, and revokes the user', async () => {
    const { client_id: _id, ...rest } = CREDENTIAL
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...rest, tunnel_client_id: TOKEN })
    const revoke = nock(ORIGIN).post(REVOKE, { tunnel_user: 'ab12c' }).reply(200, {})
    const step = await run()
    expect(revoke.isDone()).toBe(true)
    // Two users in one answer: refused before the client id is even looked at (issue 27).
    expect(step.errors).toEqual([
      expect.stringContaining('tunnel_user and tunnel_client_id differ')
    ])
    expect(step.outputs).toEqual({})
    expect(linesLeaking(step, TOKEN)).toEqual([])
  })
})
