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

it('finds the examples: one in the README (the expose example lives in docs), two in docs/other-ci.md', () => {
  expect(examples.map(([name]) => name)).toEqual([
    'README.md #1',
    'docs/other-ci.md #1',
    'docs/other-ci.md #2'
  ])
})

it.each(examples)('%s expands to the job with its inputs', (_name, example) => {
  // Read from this project's templates/, as GitLab reads a component of the project itself.
  // The placeholders the reader fills in: a commit of this repository and its tarball's hash.
  const here = example
    .replace(
      /component: \S+\/tunnel-credentials@\S+/,
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
  const { include } = parse(here) as {
    include: [{ inputs: Record<string, unknown> }]
  }
  const { inputs } = include[0]
  const name = String(inputs['job-name'] ?? 'integration-tests')
  const job = expanded[name]
  // The user's commands come last, after the provisioning, in the same shell.
  const script = inputs.script as string[]
  expect(job.script.slice(-script.length)).toEqual(script)
  // The inputs reach the CLI as flags, which no variable overrides.
  const provision = job.script.find(line => / provision /.test(line)) ?? ''
  expect(provision).toContain(`--project '${String(inputs.project)}'`)
  expect(provision).toContain(`--base-url '${String(inputs['base-url'])}'`)
  expect(provision).toContain(`--expose '${String(inputs.expose ?? '')}'`)
  expect(job.script.join('\n')).toContain(`'${String(inputs['package-sha256'])}'`)
  const own = (parse(example) as Record<string, { services?: unknown[] }>)[name]
  if (own?.services) expect(job.services).toEqual(own.services)
})
