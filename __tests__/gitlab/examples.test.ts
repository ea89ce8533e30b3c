/**
 * The component examples of README.md and docs/other-ci.md, expanded by gitlab-ci-local as GitLab
 * would expand them: each must name only inputs the component declares, give them values of the
 * right type, and yield the job it promises, merged with the keys the example adds to it.
 */
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { ensureNode24 } from '../../scripts/node24.js'
import { ensureGitlabCiLocal, gitProject, previewPipeline } from './pipeline.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const read = (name: string) => readFileSync(join(root, name), 'utf8')
const component = read('templates/tunnel-credentials.yml')

const examples = ['README.md', 'docs/other-ci.md'].flatMap(file =>
  [...read(file).matchAll(/^```yaml\n([\s\S]*?)^```$/gm)]
    .map(([, body]) => body)
    .filter(body => /^\s+- component: /m.test(body))
    .map((body, i) => [`${file} #${i + 1}`, body] as const)
)
const dirs: string[] = []
// On a fresh clone both are installed from the npm registry first: not inside a test's time.
beforeAll(() => {
  ensureNode24()
  ensureGitlabCiLocal()
}, 180_000)
afterAll(() => dirs.forEach(dir => rmSync(dir, { recursive: true, force: true })))

it('finds the examples: one in the README (the expose example lives in docs), three in docs/other-ci.md (the last shares one credential)', () => {
  expect(examples.map(([name]) => name)).toEqual([
    'README.md #1',
    'docs/other-ci.md #1',
    'docs/other-ci.md #2',
    'docs/other-ci.md #3'
  ])
})

it.each(examples)('%s expands to the job with its inputs', (_name, example) => {
  // Read from this project's templates/, as GitLab reads a component of the project itself.
  // The placeholders the reader fills in: a commit of this repository and its tarball's hash.
  const here = example
    .replaceAll(
      /component: \S+\/tunnel-credentials@\S+/g,
      'component: $CI_SERVER_FQDN/$CI_PROJECT_PATH/tunnel-credentials@$CI_COMMIT_SHA'
    )
    .replaceAll('<commit>', 'c0ffee'.padEnd(40, '0'))
    .replaceAll('<sha256>', 'ab'.repeat(32))
  const dir = gitProject({ '.gitlab-ci.yml': here, 'templates/tunnel-credentials.yml': component })
  dirs.push(dir)
  const preview = previewPipeline(dir)
  expect(preview).toMatchObject({ code: 0 })
  expect(preview.stdout).not.toContain('$[[')
  const expanded = parse(preview.stdout) as Record<
    string,
    { script: string[]; variables: Record<string, string>; services?: unknown[] }
  >
  const { include } = parse(here) as { include: { inputs: Record<string, unknown> }[] }
  // Each include is a job of its own (a pipeline that shares one credential has three).
  for (const { inputs } of include) {
    const name = String(inputs['job-name'] ?? 'integration-tests')
    const job = expanded[name]
    // The user's commands come last, after the provisioning, in the same shell.
    const script = (inputs.script ?? []) as string[]
    expect(job.script.slice(job.script.length - script.length)).toEqual(script)
    // The inputs reach the CLI as flags, which no variable overrides.
    const provision = job.script.find(line => / provision /.test(line)) ?? ''
    expect(provision).toContain(`--project '${String(inputs.project)}'`)
    expect(provision).toContain(`--base-url '${String(inputs['base-url'])}'`)
    expect(provision).toContain(`--share '${String(inputs.share ?? 'off')}'`)
    // expose reaches it through the step that replaces {index}, from single quotes.
    const exposeStep = job.script.find(line => line.startsWith('tc_rest='))
    expect(exposeStep?.split('\n')[0]).toBe(`tc_rest='${String(inputs.expose ?? '')}'`)
    expect(job.script.join('\n')).toContain(`'${String(inputs['package-sha256'])}'`)
    const own = (parse(example) as Record<string, { services?: unknown[] }>)[name]
    if (own?.services) expect(job.services).toEqual(own.services)
  }
})

// Issue 28: what the component adds to each job of the pipeline that shares one credential.
it('the shared pipeline of docs/other-ci.md: the setup job hands shared.env on, the final job runs always', () => {
  const [, example] = examples[examples.length - 1]
  const dir = gitProject({
    '.gitlab-ci.yml': example
      .replaceAll(
        /component: \S+\/tunnel-credentials@\S+/g,
        'component: $CI_SERVER_FQDN/$CI_PROJECT_PATH/tunnel-credentials@$CI_COMMIT_SHA'
      )
      .replaceAll('<commit>', 'c0ffee'.padEnd(40, '0'))
      .replaceAll('<sha256>', 'ab'.repeat(32)),
    'templates/tunnel-credentials.yml': component
  })
  dirs.push(dir)
  const preview = previewPipeline(dir)
  expect(preview).toMatchObject({ code: 0 })
  const jobs = parse(preview.stdout) as Record<string, Record<string, unknown>>
  expect(jobs['tunnel-setup'].artifacts).toEqual({
    when: 'always',
    reports: { dotenv: 'shared.env' }
  })
  expect(jobs['tunnel-revoke'].when).toBe('always')
  expect(jobs.e2e.parallel).toBe(3)
  expect((jobs.e2e.needs as { job: string }[]).map(need => need.job)).toEqual(['tunnel-setup'])
  expect(jobs.e2e.when).not.toBe('always')
  expect(jobs.e2e.artifacts).toBeUndefined()
})
