/**
 * `npm run demo`: the whole lifecycle on this machine, no account needed. Starts the local
 * credential service and runs the bundled action as the runner does (Node 24, INPUT_* variables,
 * file commands), in three parts, printing what a workflow author would see:
 * 1. main and post without `expose`: masked, exported, summarised, revoked;
 * 2. main with `expose` and `protect` (demo-expose.ts): the URL is proven, refuses a request
 *    without the gate's secret, takes a webhook through its URL, heals a dropped connection, is
 *    gone after post, whose summary tables the requests; the HAR replays against the app;
 * 3. the exported variables with OpenSSH's `ssh -R` (demo-tunnel.ts): the session ends and a new
 *    login is refused once post has revoked the token.
 * Exits 1 when any part of the lifecycle did not happen.
 */
import { Job } from './job.js'
import {
  ensureNode24,
  findSecretLeaks,
  Masker,
  renderLog,
  renderSummary,
  type StepResult
} from './runner.js'
import { startCredentialService } from '../service/server.js'
import { runExposeDemo } from './demo-expose.js'
import { runTunnelDemo } from './demo-tunnel.js'

const failures: string[] = []
const check = (ok: boolean, what: string) => {
  if (!ok) failures.push(what)
}
const indent = (text: string) => text.replace(/^/gm, '  ')
const heading = (title: string) =>
  console.log(`\n── ${title} ${'─'.repeat(Math.max(0, 60 - title.length))}`)

function showStep(name: string, step: StepResult): void {
  heading(`${name} step: exit ${step.exitCode}, ${step.durationMs} ms`)
  console.log(indent(renderLog(step) || '(no output)'))
}

/** Variables and outputs as a later step's log would show them: masked values as ***. */
function showValues(title: string, values: Record<string, string>, masks: string[]): void {
  const masker = new Masker()
  masks.forEach(value => masker.add(value))
  console.log(`\n${title}:`)
  for (const [name, value] of Object.entries(values)) console.log(`  ${name}=${masker.mask(value)}`)
}

const node = ensureNode24()
const service = await startCredentialService()
try {
  const { provisionKey: apiKey, project } = service.seed
  console.log(
    `Local credential service: ${service.baseUrl} (in memory; seeded key and project "${project}")`
  )
  console.log(
    `Workflow step:  uses: ./  with: { project: ${project}, api-key: \${{ secrets.API_KEY }}, base-url: … }`
  )

  const job = new Job({ node })
  const { main } = await job.uses({ 'api-key': apiKey, project, 'base-url': service.baseUrl })
  showStep('main', main)
  showValues('Exported to later steps', main.env, main.masks)
  showValues('Outputs', main.outputs, main.masks)
  console.log(`\nJob summary:\n${indent(renderSummary(main.summary) || '(empty)')}`)

  const user = main.env.SVC_TUNNEL_USER ?? ''
  const token = main.env.SVC_TUNNEL_TOKEN ?? ''
  const status = () => service.tokens().find(t => t.tunnel_user === user)?.status ?? 'not found'
  const before = status()
  console.log(`\nToken of tunnel user ${user || '?'} in the service after main: ${before}`)

  const [post] = await job.end()
  showStep('post', post)
  const after = status()
  console.log(`\nToken of tunnel user ${user || '?'} in the service after post: ${after}`)

  check(main.exitCode === 0, 'main step exited 0')
  check(
    /^tok_\S+$/.test(token) && user !== '',
    'main exported SVC_TUNNEL_TOKEN and SVC_TUNNEL_USER'
  )
  check(main.outputs['tunnel-user'] === user, 'main set the tunnel-user output')
  check(main.summary.includes(user) && user !== '', 'main wrote the job summary')
  check(before === 'active', 'the token was active after main')
  check(post.exitCode === 0, 'post step exited 0')
  check(after === 'revoked', 'the token was revoked after post')
  for (const step of [main, post]) {
    const leaks = findSecretLeaks(step, { secrets: [apiKey, token], maskFirst: [apiKey] })
    check(leaks.length === 0, `no secret visible in the ${step.step} step (${leaks.join('; ')})`)
  }
  check(main.masks.includes(token), 'the token was masked')
} finally {
  await service.close()
}

// ── expose (scripts/demo-expose.ts): the action opens the tunnel, heals a drop, post closes it.
failures.push(...(await runExposeDemo(node)))

// ── Tunnel (scripts/demo-tunnel.ts): the exported variables open a tunnel; post takes it back.
failures.push(...(await runTunnelDemo(node)))

console.log()
if (failures.length === 0) {
  console.log(
    'Demo OK: provisioned, masked, exported, summarised, exposed, gated, logged, replayed and revoked.'
  )
} else {
  console.log(`Demo FAILED: ${failures.map(f => `not true: ${f}`).join('\n             ')}`)
  process.exitCode = 1
}
