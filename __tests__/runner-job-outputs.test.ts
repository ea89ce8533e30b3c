/**
 * The runner's rule for job outputs, as the emulation applies it when a job ends: an output whose
 * value holds anything the job masked is dropped with the runner's warning, the rest pass as they
 * are. A job output is how a setup job hands its shared credential to the matrix jobs; the rule
 * is why a masked value never could be.
 */
import { jobOutputs } from '../scripts/runner/job-outputs.js'

const TOKEN = 'tok_9f8e7d6c5b4a'

it('passes values that hold no masked text, unchanged, empty ones included', () => {
  expect(jobOutputs({ blob: 'ptc1.eyJ2IjoxfQ.c2FsdA', empty: '' }, [TOKEN])).toEqual({
    outputs: { blob: 'ptc1.eyJ2IjoxfQ.c2FsdA', empty: '' },
    warnings: []
  })
})

it('drops an output holding a masked value anywhere in it, with the runner warning', () => {
  const declared = { token: TOKEN, line: `Authorization: Bearer ${TOKEN}`, user: 'tu_1' }
  expect(jobOutputs(declared, [TOKEN])).toEqual({
    outputs: { user: 'tu_1' },
    warnings: [
      "Skip output 'token' since it may contain secret.",
      "Skip output 'line' since it may contain secret."
    ]
  })
})

it('drops an output holding one line of a multi-line mask, as add-mask masks each line', () => {
  const pem = 'line-one-of-a-key\nline-two-of-a-key'
  expect(jobOutputs({ part: 'x line-two-of-a-key' }, [pem])).toEqual({
    outputs: {},
    warnings: ["Skip output 'part' since it may contain secret."]
  })
})
