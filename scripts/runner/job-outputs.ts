/**
 * A job's `outputs:` as the runner hands them to the jobs that need it. When the job ends, the
 * runner evaluates each declared output and drops any whose value its secret masker would change
 * (a workflow secret, or any value a step of the job registered with add-mask), with a warning:
 * a masked value never crosses to another job. This is why an action that masks a token cannot
 * pass it on as a job output, and what a value meant for other jobs must survive.
 */
import { Masker } from './masker.js'

export interface JobOutputs {
  /** What `needs.<job>.outputs` holds: the declared outputs the runner kept. */
  outputs: Record<string, string>
  /** The runner's warning for each output it dropped, in declaration order. */
  warnings: string[]
}

/**
 * `declared` maps each job output to its evaluated value (e.g. a step's output); `masks` are
 * every value masked in the job: its secrets and every add-mask of every step, post included.
 */
export function jobOutputs(declared: Record<string, string>, masks: string[]): JobOutputs {
  const masker = new Masker()
  for (const value of masks) masker.add(value)
  const outputs: Record<string, string> = {}
  const warnings: string[] = []
  for (const [name, value] of Object.entries(declared)) {
    if (masker.mask(value) !== value) {
      warnings.push(`Skip output '${name}' since it may contain secret.`)
      continue
    }
    outputs[name] = value
  }
  return { outputs, warnings }
}
