/**
 * Property-based suite: many hostile credential-provision answers, each run through the main step
 * and then the post step in this process, with the service mocked by nock. A fixed seed keeps
 * `npm test` repeatable; FUZZ_RUNS raises the number of answers for a deeper run
 * (`FUZZ_RUNS=5000 npm test -- --coverage=false __tests__/fuzz`). FUZZ_SEED picks another seed.
 */
import fc from 'fast-check'
import nock from 'nock'
import { useNock } from '../helpers/nock-lifecycle.js'
import { REVOKED, VALID_ANSWER, hostileCase, hostileInputText } from './answers.js'
import { INPUTS, problemsWith } from './run-steps.js'

const RUNS = Number(process.env.FUZZ_RUNS) || 150
const SEED = Number(process.env.FUZZ_SEED) || 20261123
// Generous: a run is a few milliseconds, but shrinking a failure replays many of them.
const TIMEOUT_MS = 60_000 + RUNS * 100

useNock(nock)

function assertSound(problems: string[]): void {
  if (problems.length > 0) throw new Error(problems.join('\n'))
}

it('exports the valid answer and revokes it in post (the oracle accepts a sound run)', async () => {
  expect(await problemsWith([VALID_ANSWER], REVOKED)).toEqual([])
})

it(
  'for every hostile answer: the credential whole or nothing, one ::error::, no leak, no stray entry or command, revoked',
  async () => {
    await fc.assert(
      fc.asyncProperty(hostileCase, async ({ answers, revokeAnswer }) =>
        assertSound(await problemsWith(answers, revokeAnswer))
      ),
      { seed: SEED, numRuns: RUNS }
    )
  },
  TIMEOUT_MS
)

it(
  'for hostile project and environment inputs: no line the runner would read as a command, no leak',
  async () => {
    const failed = { ...VALID_ANSWER, status: 404, body: '{"error":"no","code":"NOT_FOUND"}' }
    await fc.assert(
      fc.asyncProperty(
        hostileInputText,
        hostileInputText,
        fc.constantFrom(VALID_ANSWER, failed),
        async (project, environment, answer) =>
          assertSound(await problemsWith([answer], REVOKED, { ...INPUTS, project, environment }))
      ),
      { seed: SEED, numRuns: Math.ceil(RUNS / 3) }
    )
  },
  TIMEOUT_MS
)
