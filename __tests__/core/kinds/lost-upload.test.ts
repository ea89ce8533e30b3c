/**
 * credential: ssh-key when a keys-upload answer is lost: the service stored the key, but answered
 * a 500 with no body or nothing at all, and the retry stored it again. No record of the key may
 * stay live after post: main and post find them by the fingerprint the step computed.
 */
import nock from 'nock'
import {
  API_KEY,
  fakeClock,
  runInProcess,
  type StepOutcome
} from '../../helpers/in-process-step.js'
import { useNock } from '../../helpers/nock-lifecycle.js'
import {
  INPUTS,
  LIST,
  ORIGIN,
  REVOKE,
  RUN,
  UPLOAD,
  fingerprintOfLine,
  useRunnerTemp
} from '../../helpers/ssh-key-step.js'

// nock must patch http before @actions/http-client loads.
const { runMain, runPost } = await import('../../helpers/github-steps.js')

const FIRST = '11111111-1111-4111-8111-111111111111'
const SECOND = '22222222-2222-4222-8222-222222222222'
const THIRD = '33333333-3333-4333-8333-333333333333'
const OTHER = '44444444-4444-4444-8444-444444444444'
const NAME = 'ci-octo-org-web-shop-4242-2'

useNock(nock)
const runnerTempOf = useRunnerTemp()

/**
 * A service that stores every upload under the next id, whatever it answers, and lists and revokes
 * what it stored, as the real one does. `answers` decides each upload's reply in turn.
 */
function lostAnswerService(answers: Array<'lost' | 'ok' | 'no-key-id'>, listStatus = 200) {
  const records: { id: string; fingerprint: string; name: string; status: string }[] = [
    { id: OTHER, fingerprint: 'SHA256:someOtherKeyOfTheAccount', name: 'laptop', status: 'active' }
  ]
  const ids = [FIRST, SECOND, THIRD]
  const revoked: string[] = []
  let upload = 0
  const scope = nock(ORIGIN, { reqheaders: { 'x-api-key': API_KEY } })
  scope
    .post(UPLOAD)
    .times(answers.length)
    .reply((_uri, body) => {
      const request = body as { public_key_ssh: string; name: string }
      const id = ids[upload]
      const fingerprint = fingerprintOfLine(request.public_key_ssh)
      records.push({ id, fingerprint, name: request.name, status: 'active' })
      const answer = answers[upload++]
      if (answer === 'lost') return [500, '']
      return [
        200,
        {
          ...(answer === 'ok' && { key_id: id }),
          public_key_fingerprint: fingerprint,
          name: request.name,
          expires_at: null
        }
      ]
    })
  scope
    .get(LIST)
    .times(20)
    .optionally()
    .reply(() => (listStatus === 200 ? [200, { keys: records }] : [listStatus, '']))
  scope
    .post(REVOKE)
    .times(20)
    .optionally()
    .reply((_uri, body) => {
      const { key_id } = body as { key_id: string }
      const record = records.find(entry => entry.id === key_id)
      if (!record || record.status !== 'active') return [404, { error: 'gone', code: 'NOT_FOUND' }]
      record.status = 'revoked'
      revoked.push(key_id)
      return [200, { success: true, message: 'revoked' }]
    })
  return {
    revoked,
    live: () => records.filter(r => r.status === 'active' && r.id !== OTHER).map(r => r.id),
    setListStatus: (status: number) => (listStatus = status)
  }
}

const runMainStep = () =>
  runInProcess(() => runMain(fakeClock()), INPUTS, { env: { ...RUN, RUNNER_TEMP: runnerTempOf() } })
const runPostAfter = (main: StepOutcome, inputs: Record<string, string> = INPUTS) =>
  runInProcess(() => runPost(fakeClock()), inputs, {
    state: { ...main.state },
    env: { RUNNER_TEMP: runnerTempOf() }
  })

describe('a keys-upload retried after a 500 with no body', () => {
  it('keeps the answered record, revokes the one the lost answer stored, and post leaves none', async () => {
    const service = lostAnswerService(['lost', 'ok'])
    const main = await runMainStep()
    expect(main.failed).toBe(false)
    expect(main.outputs['key-id']).toBe(SECOND)
    expect(service.revoked).toEqual([FIRST])
    expect(main.lines).toContainEqual(
      expect.stringMatching(
        /^Revoked 1 other record of the key SHA256:\S+ that an upload whose answer was lost had stored \(1111/
      )
    )
    expect(service.live()).toEqual([SECOND])

    const post = await runPostAfter(main)
    expect(post.warnings).toEqual([])
    expect(service.revoked).toEqual([FIRST, SECOND])
    expect(service.live()).toEqual([])
  })

  it('when the key list fails in main, warns how to revoke by hand, and post finishes the job', async () => {
    const service = lostAnswerService(['lost', 'ok'], 503)
    const main = await runMainStep()
    expect(main.failed).toBe(false)
    const fingerprint = main.outputs['key-fingerprint']
    expect(main.warnings).toHaveLength(1)
    expect(main.warnings[0]).toContain(
      `a key with fingerprint ${fingerprint} and name "${NAME}" may still be active: find it in the service dashboard or with GET user-keys-list, and revoke it (POST revoke-ssh-key with its id) using the same api-key.`
    )
    expect(service.live()).toEqual([FIRST, SECOND])
    expect(JSON.parse(main.state.credential)).toMatchObject({ keyId: SECOND, mayHaveCopies: true })

    service.setListStatus(200)
    const post = await runPostAfter(main)
    expect(post.warnings).toEqual([])
    expect(service.live()).toEqual([])
    expect(service.revoked.sort()).toEqual([FIRST, SECOND])
  })
  it('with revoke: false, post keeps the key but revokes the copy main could not', async () => {
    const service = lostAnswerService(['lost', 'ok'], 503)
    const main = await runMainStep()
    expect(service.live()).toEqual([FIRST, SECOND])
    service.setListStatus(200)
    const post = await runPostAfter(main, { ...INPUTS, revoke: 'false' })
    expect(post.warnings).toEqual([])
    expect(service.live()).toEqual([SECOND])
    expect(service.revoked).toEqual([FIRST])
  })
})

describe('a keys-upload whose every answer is lost', () => {
  it('fails, having revoked every record the attempts stored', async () => {
    const service = lostAnswerService(['lost', 'lost', 'lost'])
    const main = await runMainStep()
    expect(main.failed).toBe(true)
    expect(main.errors[0]).toMatch(/^The credential service failed \(500\)/)
    // Three attempts (max-attempts' default), three records, all revoked.
    expect(service.revoked).toEqual([FIRST, SECOND, THIRD])
    expect(service.live()).toEqual([])
    expect(main.state.credential).toBe('')
  })

  it('leaves post the fingerprint when the list fails too, and post revokes by it', async () => {
    const service = lostAnswerService(['lost', 'lost', 'lost'], 500)
    const main = await runMainStep()
    expect(main.failed).toBe(true)
    expect(main.warnings.join('\n')).toContain(`and name "${NAME}" may still be active`)
    const saved = JSON.parse(main.state.credential)
    expect(saved).toMatchObject({ kind: 'ssh-key', keyName: NAME, rejected: true })
    expect(saved).not.toHaveProperty('keyId')
    expect(service.live().length).toBeGreaterThan(0)

    // Post with the list still failing: the warning says what may be left and how to revoke it.
    const failing = await runPostAfter(main)
    expect(failing.warnings).toHaveLength(1)
    expect(failing.warnings[0]).toContain(
      `a key with fingerprint ${saved.fingerprint} and name "${NAME}" may still be active`
    )

    service.setListStatus(200)
    const post = await runPostAfter(main)
    expect(post.warnings).toEqual([])
    expect(service.live()).toEqual([])
  })
})

describe('an upload answer without a usable key_id', () => {
  it('fails, and revokes the stored key by its fingerprint', async () => {
    const service = lostAnswerService(['no-key-id'])
    const main = await runMainStep()
    expect(main.failed).toBe(true)
    expect(main.errors[0]).toContain(
      'key_id is missing or not a plain identifier, so the key cannot be revoked by its id; every record of the key the service lists was revoked instead. Nothing was exported.'
    )
    expect(service.revoked).toEqual([FIRST])
    expect(service.live()).toEqual([])
    expect(main.env).toEqual({})
    expect(main.state.credential).toBe('')
  })
})
