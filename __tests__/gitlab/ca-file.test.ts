/**
 * The component's trust: only its `ca-file` input adds a CA. Against the local service over https
 * with a throwaway CA (a runner behind a TLS-inspecting proxy), in gitlab-ci-local: pipeline
 * variables NODE_EXTRA_CA_CERTS and NODE_TLS_REJECT_UNAUTHORIZED=0 do not make the tool trust it,
 * so the key is never sent; `ca-file` does, and the job provisions and revokes.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stringify } from 'yaml'
import { startCredentialService, type RunningService } from '../../service/server.js'
import {
  makeThrowawayCertificate,
  type ThrowawayCertificate
} from '../../scripts/throwaway-certificate.js'
import { usePackedTarball } from '../helpers/packed-cli.js'
import { ensureGitlabCiLocal, gitProject, leaksIn, packageInputs, runPipeline } from './pipeline.js'
import { ensureNode24 } from '../../scripts/node24.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const component = readFileSync(join(root, 'templates', 'tunnel-credentials.yml'), 'utf8')
const packed = usePackedTarball()
let certificate: ThrowawayCertificate
let service: RunningService
const temps: string[] = []
const scratch = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temps.push(dir)
  return dir
}

beforeAll(async () => {
  ensureNode24()
  ensureGitlabCiLocal()
  certificate = makeThrowawayCertificate()
  service = await startCredentialService({ tls: { key: certificate.key, cert: certificate.cert } })
}, 180_000)
afterAll(async () => {
  await service?.close()
  certificate?.remove()
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

/** One job of the component, no tunnel; its script hands the test the user it was given. */
async function runJob(inputs: Record<string, string>) {
  const sink = scratch('gitlab-sink-')
  const dir = gitProject({
    '.gitlab-ci.yml': stringify({
      include: [
        {
          local: 'templates/tunnel-credentials.yml',
          inputs: {
            ...packageInputs(packed()),
            project: service.seed.project,
            'base-url': service.baseUrl,
            script: ['printf "%s" "$SVC_TUNNEL_USER" > "$TEST_SINK/user"'],
            ...inputs
          }
        }
      ]
    }),
    'templates/tunnel-credentials.yml': component
  })
  temps.push(dir)
  service.clearRequests()
  const run = await runPipeline(dir, {
    npmCache: scratch('gitlab-npm-cache-'),
    projectVariables: { SVC_API_KEY: service.seed.provisionKey },
    pipelineVariables: {
      NODE_EXTRA_CA_CERTS: certificate.certFile,
      NODE_TLS_REJECT_UNAUTHORIZED: '0'
    },
    env: { TEST_SINK: sink }
  })
  expect(leaksIn(run, [service.seed.provisionKey])).toEqual([])
  const userFile = join(sink, 'user')
  return { run, user: existsSync(userFile) ? readFileSync(userFile, 'utf8') : undefined }
}

it('NODE_EXTRA_CA_CERTS and NODE_TLS_REJECT_UNAUTHORIZED=0 as pipeline variables add no trust: nothing is sent', async () => {
  const { run, user } = await runJob({})
  expect(run.output).toMatch(/FAIL\s+integration-tests/)
  expect(run.output).toMatch(/self-signed certificate/)
  expect(user).toBeUndefined()
  expect(service.tokens()).toEqual([])
  expect(service.requests()).toEqual([])
}, 90_000)

it('ca-file trusts the CA: the job provisions over https and after_script revokes', async () => {
  const { run, user } = await runJob({ 'ca-file': certificate.certFile })
  expect(run.output).toMatch(/PASS\s+integration-tests/)
  expect(user).toMatch(/^\S+$/)
  expect(service.tokens().find(t => t.tunnel_user === user)?.status).toBe('revoked')
}, 90_000)
