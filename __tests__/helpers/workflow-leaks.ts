/**
 * Where a secret may appear in a finished workflow run: in the `::add-mask::` line that registers
 * it, and in GITHUB_ENV (the variables later steps of its own job receive, the product's design).
 * Nowhere else: not in another log line, the job summary, the saved state, or a job output.
 * Read from the raw lines the runner received, so it holds for either driver.
 */
import type { ActionStep, FinishedJob } from './workflow-run.js'

/** One sentence per place a secret was found; empty when the run is clean. */
export function secretsOutsideMasks(
  jobs: Record<string, FinishedJob>,
  secrets: string[]
): string[] {
  const found: string[] = []
  const check = (where: string, text: string, secret: string) => {
    if (text.includes(secret)) found.push(`${where} holds secret ${secret.slice(0, 4)}...`)
  }
  for (const secret of secrets.filter(s => s !== '')) {
    for (const [name, job] of Object.entries(jobs)) {
      for (const step of [job.main, job.post] satisfies ActionStep[]) {
        const at = `${name} ${step.step}`
        step.log.forEach((line, i) => {
          if (line !== `::add-mask::${secret}`) check(`${at} log line ${i + 1}`, line, secret)
        })
        check(`${at} summary`, step.summary, secret)
        for (const [key, value] of Object.entries(step.state))
          check(`${at} state ${key}`, value, secret)
      }
      for (const [key, value] of Object.entries(job.outputs)) {
        check(`${name} job output ${key}`, value, secret)
      }
    }
  }
  return found
}
