/**
 * The `expose` part of `npm run demo`: the action opens the tunnel itself. Starts the local
 * service with its tunnel stand-in and a local app, runs the bundled main step with
 * `expose: app=<port>` and the stand-in's url-template, curls the `url` output, drops every
 * SSH connection at the stand-in (POST /__admin/tunnel/drop) and shows the URL answering again
 * once the action's tunnel process has reconnected, then runs the post step, whose tunnel line
 * counts that reconnect, and shows that the URL is gone and the token revoked.
 */
import { readFileSync } from 'node:fs'
import { curl } from './demo-tunnel.js'
import { Job } from './job.js'
import { getThroughFront, startLocalApp } from './openssh.js'
import { findSecretLeaks, renderLog } from './runner.js'
import { startCredentialService } from '../service/server.js'
import { lookUpProcess } from '../src/core/tunnel/identity.js'
import { tunnelFiles } from '../src/core/tunnel/protocol.js'

const indent = (text: string) => text.replace(/^/gm, '    ')

/** The pid and the tunnel directory main saved for post (state `tunnel`); nothing secret. */
function savedTunnel(state: Record<string, string>): { pid?: number; logPath?: string } {
  try {
    const { pid, dir } = JSON.parse(state.tunnel ?? '{}') as { pid?: number; dir?: string }
    return { pid, logPath: dir === undefined ? undefined : tunnelFiles(dir).logPath }
  } catch {
    return {}
  }
}

/** Running, and not a zombie waiting for whatever adopted it to reap it (see identity.ts). */
function isAlive(pid: number | undefined): boolean {
  return pid !== undefined && lookUpProcess(pid).state !== 'gone'
}

/** Runs the expose demo and prints it; returns what did not happen (empty when all did). */
export async function runExposeDemo(node: string): Promise<string[]> {
  const failures: string[] = []
  const check = (ok: boolean, what: string) => {
    if (!ok) failures.push(what)
  }
  console.log(`\n── expose: the action opens the tunnel itself ${'─'.repeat(16)}`)

  const service = await startCredentialService({ tunnel: { checkIntervalMs: 100 } })
  const tunnel = service.tunnel!
  const app = await startLocalApp('answer from your local app')
  const job = new Job({ node })
  let posted = false
  try {
    const { provisionKey: apiKey, project } = service.seed
    console.log(`  Local app: http://127.0.0.1:${app.port}/`)
    console.log(`  Tunnel stand-in: SSH on ${tunnel.host}:${tunnel.port}, front ${tunnel.frontUrl}`)
    const inputs = {
      'api-key': apiKey,
      project,
      'base-url': service.baseUrl,
      expose: `app=${app.port}`,
      'url-template': tunnel.urlTemplate,
      'tunnel-host-key': tunnel.fingerprint
    }
    console.log('  Workflow step:  uses: ./  with:')
    for (const name of ['expose', 'url-template', 'tunnel-host-key']) {
      console.log(`    ${name}: ${inputs[name as keyof typeof inputs]}`)
    }

    const { main } = await job.uses(inputs)
    console.log(`\n  main step: exit ${main.exitCode}, ${main.durationMs} ms`)
    console.log(indent(renderLog(main) || '(no output)'))
    check(main.exitCode === 0, 'the expose main step exited 0')
    const url = main.outputs.url ?? ''
    const user = main.outputs['tunnel-user'] ?? ''
    console.log(`  outputs: url=${url} urls=${main.outputs.urls ?? ''}`)
    check(url !== '', 'main set the url output')
    const host = url === '' ? '' : new URL(url).hostname
    const saved = savedTunnel(main.state)
    check(isAlive(saved.pid), 'the tunnel process was running after main')

    console.log(`\n  A later step:  $ curl -sS ${url}`)
    const first = await curl(url, tunnel.frontPort, host)
    console.log(`  → ${first.trim()}`)
    check(first.startsWith('answer from your local app'), 'the url reached the local app')

    console.log(`\n  The connection drops:  $ curl -sS -X POST ${service.adminUrl}/tunnel/drop`)
    const dropped = await fetch(`${service.adminUrl}/tunnel/drop`, { method: 'POST' })
    const droppedAt = Date.now()
    console.log(`  → ${JSON.stringify(await dropped.json())}`)
    let healedMs: number | undefined
    while (Date.now() - droppedAt < 10_000) {
      const answer = await getThroughFront(tunnel.frontPort, host).catch(() => undefined)
      if (answer?.status === 200) {
        healedMs = Date.now() - droppedAt
        break
      }
      await new Promise(resolve => setTimeout(resolve, 50))
    }
    console.log(
      healedMs === undefined
        ? '  the URL did NOT answer again within 10 s'
        : `  the URL answers again ${healedMs} ms after the drop: the tunnel process reconnected`
    )
    check(healedMs !== undefined && healedMs <= 5000, 'the dropped connection healed within 5 s')
    const again = await curl(url, tunnel.frontPort, host)
    console.log(`  $ curl -sS ${url}\n  → ${again.trim()}`)
    if (saved.logPath !== undefined) {
      const log = readFileSync(saved.logPath, 'utf8').trim().split('\n')
      console.log(`  the tunnel process's log (${saved.logPath}), last lines:`)
      console.log(indent(log.slice(-4).join('\n')))
    }

    const [post] = await job.end()
    posted = true
    console.log(`\n  post step: exit ${post.exitCode}, ${post.durationMs} ms`)
    console.log(indent(renderLog(post) || '(no output)'))
    check(post.exitCode === 0, 'the expose post step exited 0')
    check(/\b1 reconnect\b/.test(post.stdout), "post's tunnel line counts one reconnect")
    const status = service.tokens().find(t => t.tunnel_user === user)?.status
    const after = await getThroughFront(tunnel.frontPort, host)
    console.log(
      `  after post: tunnel process ${isAlive(saved.pid) ? 'STILL RUNNING' : 'gone'}, ` +
        `token ${status}, the URL answers ${after.status}`
    )
    check(!isAlive(saved.pid), 'post stopped the tunnel process')
    check(status === 'revoked' && after.status === 502, 'post revoked the token and closed the URL')
    const token = main.env.SVC_TUNNEL_TOKEN ?? ''
    for (const step of [main, post]) {
      const leaks = findSecretLeaks(step, { secrets: [apiKey, token], maskFirst: [apiKey] })
      check(leaks.length === 0, `no secret visible in the expose ${step.step} step`)
    }
  } catch (error) {
    failures.push(`the expose demo ran through (${String(error)})`)
  } finally {
    if (!posted) await job.end().catch(() => undefined)
    await app.close()
    await service.close()
  }
  return failures
}
