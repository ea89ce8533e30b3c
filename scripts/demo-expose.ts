/**
 * The `expose` part of `npm run demo`: the action opens the tunnel itself, behind its gate.
 * Starts the local service with its tunnel stand-in and a local app, runs the bundled main step
 * with `expose: app=<port>`, the stand-in's url-template and `protect: true` (main proves the
 * URL before it returns), then shows: a request without the gate's secret refused with 401, one
 * with the `protect-header` reaching the app, a webhook-like POST to the `protect-webhook-urls`
 * URL reaching the app without the secret, the URL answering again after the stand-in drops
 * every SSH connection (POST /__admin/tunnel/drop), the post step (its request table, its
 * tunnel line counting that reconnect), the HAR of the request log, and the bundled CLI's
 * `replay` of that HAR against the local app. No secret may appear in anything it prints.
 */
import { readFileSync } from 'node:fs'
import {
  harEntries,
  keepHar,
  replayWithCli,
  requestTable,
  sendThroughFront,
  startRecordingApp
} from './demo-traffic.js'
import { Job } from './job.js'
import { findSecretLeaks, Masker, renderLog } from './runner.js'
import { startCredentialService } from '../service/server.js'
import { lookUpProcess } from '../src/core/tunnel/saved/process-identity.js'
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

const WEBHOOK_BODY = '{"event":"order.paid","order":42}'

/** Runs the expose demo and prints it; returns what did not happen (empty when all did). */
export async function runExposeDemo(node: string): Promise<string[]> {
  const failures: string[] = []
  const check = (ok: boolean, what: string) => {
    if (!ok) failures.push(what)
  }
  // Everything the demo prints itself, checked for secrets at the end.
  const printed: string[] = []
  const say = (text: string) => (printed.push(text), console.log(text))
  say(`\n── expose: the action opens the tunnel itself ${'─'.repeat(16)}`)

  const service = await startCredentialService({ tunnel: { checkIntervalMs: 100 } })
  const tunnel = service.tunnel!
  const app = await startRecordingApp('answer from your local app')
  const job = new Job({ node })
  let ended = false
  try {
    const { provisionKey: apiKey, project } = service.seed
    say(`  Local app: http://127.0.0.1:${app.port}/`)
    say(`  Tunnel stand-in: SSH on ${tunnel.host}:${tunnel.port}, front ${tunnel.frontUrl}`)
    const inputs = {
      'api-key': apiKey,
      project,
      'base-url': service.baseUrl,
      expose: `app=${app.port}`,
      'url-template': tunnel.urlTemplate,
      'tunnel-host-key': tunnel.fingerprint,
      protect: 'true',
      // Bodies are off by default; the demo keeps its harmless webhook body so replay can send it.
      'log-bodies': '1024'
    }
    say('  Workflow step:  uses: ./  with:')
    for (const name of ['expose', 'url-template', 'tunnel-host-key', 'protect', 'log-bodies']) {
      say(`    ${name}: ${inputs[name as keyof typeof inputs]}`)
    }

    const use = await job.uses(inputs)
    const { main } = use
    say(`\n  main step: exit ${main.exitCode}, ${main.durationMs} ms`)
    say(indent(renderLog(main) || '(no output)'))
    check(main.exitCode === 0, 'the expose main step exited 0 (the URL was proven)')
    const gateSecret = main.outputs['protect-secret'] ?? ''
    const token = main.env.SVC_TUNNEL_TOKEN ?? ''
    const masker = new Masker()
    main.masks.forEach(value => masker.add(value))
    const url = main.outputs.url ?? ''
    const user = main.outputs['tunnel-user'] ?? ''
    say(`  outputs (as a later step's log shows them):`)
    for (const name of ['url', 'protect-header', 'protect-webhook-urls', 'request-log']) {
      say(`    ${name}=${masker.mask(main.outputs[name] ?? '')}`)
    }
    check(url !== '' && gateSecret.length >= 43, 'main set the url and protect-secret outputs')
    check(main.masks.includes(gateSecret), "main masked the gate's secret")
    const saved = savedTunnel(main.state)
    check(isAlive(saved.pid), 'the tunnel process was running after main')

    say(`\n  Without the secret:  $ curl -sS -i ${url}`)
    const refused = await sendThroughFront(tunnel.frontPort, url)
    say(
      `  → ${refused.status}, WWW-Authenticate: ${refused.headers['www-authenticate'] ?? '(none)'}`
    )
    check(refused.status === 401, 'a request without the secret got 401')
    check(app.arrivals.length === 0, 'the refused request never reached the app')

    const gateHeader = main.outputs['protect-header'] ?? ''
    const [headerName, headerValue] = gateHeader.split(/:\s*/, 2)
    say(`  With protect-header:  $ curl -sS -H "$PROTECT_HEADER" ${url}`)
    const withHeader = { [headerName]: headerValue }
    const admitted = await sendThroughFront(tunnel.frontPort, url, { headers: withHeader })
    say(`  → ${admitted.status} ${admitted.body.trim()}`)
    check(admitted.status === 200, 'a request with the protect-header reached the app')

    const webhookBase =
      (JSON.parse(main.outputs['protect-webhook-urls'] ?? '{}') as Record<string, string>).app ?? ''
    const webhook = `${webhookBase}/hooks/order`
    say(`\n  A webhook sender that takes only a URL (protect-webhook-urls' app + /hooks/order):`)
    say(
      `  $ curl -sS -X POST -H 'Content-Type: application/json' -d '${WEBHOOK_BODY}' ${masker.mask(webhook)}`
    )
    const delivered = await sendThroughFront(tunnel.frontPort, webhook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: WEBHOOK_BODY
    })
    const got = app.arrivals.at(-1)
    const gateHeaders = Object.keys(got?.headers ?? {}).filter(name =>
      ['authorization', headerName.toLowerCase()].includes(name)
    )
    say(
      `  → ${delivered.status}; the app received: ${got?.method} ${got?.target}, ` +
        `${got?.body.length ?? 0}-byte body, gate headers: ${gateHeaders.join(', ') || 'none'}`
    )
    check(
      delivered.status === 200 && got?.method === 'POST' && got.target === '/hooks/order',
      'the webhook POST reached the app at its own path, without the gate prefix'
    )
    check(got?.body.toString() === WEBHOOK_BODY, 'the webhook body reached the app byte for byte')
    check(
      gateHeaders.length === 0 && !JSON.stringify(got?.headers ?? {}).includes(gateSecret),
      'the app saw no trace of the gate'
    )

    say(`\n  The connection drops:  $ curl -sS -X POST ${service.adminUrl}/tunnel/drop`)
    const dropped = await fetch(`${service.adminUrl}/tunnel/drop`, { method: 'POST' })
    const droppedAt = Date.now()
    say(`  → ${JSON.stringify(await dropped.json())}`)
    let healedMs: number | undefined
    while (Date.now() - droppedAt < 10_000) {
      const answer = await sendThroughFront(tunnel.frontPort, url, { headers: withHeader }).catch(
        () => undefined
      )
      if (answer?.status === 200) {
        healedMs = Date.now() - droppedAt
        break
      }
      await new Promise(resolve => setTimeout(resolve, 50))
    }
    say(
      healedMs === undefined
        ? '  the URL did NOT answer again within 10 s'
        : `  the URL answers again ${healedMs} ms after the drop: the tunnel process reconnected`
    )
    check(healedMs !== undefined && healedMs <= 5000, 'the dropped connection healed within 5 s')
    if (saved.logPath !== undefined) {
      const log = readFileSync(saved.logPath, 'utf8').trim().split('\n')
      say(`  the tunnel process's log (${saved.logPath}), last lines:`)
      say(indent(log.slice(-4).join('\n')))
    }

    const post = await use.post()
    say(`\n  post step: exit ${post.exitCode}, ${post.durationMs} ms`)
    say(indent(renderLog(post) || '(no output)'))
    check(post.exitCode === 0, 'the expose post step exited 0')
    check(/\b1 reconnect\b/.test(post.stdout), "post's tunnel line counts one reconnect")
    const table = requestTable(post.summary)
    say(`  post's job summary, the request table:`)
    say(indent(table.join('\n')))
    check(
      table.some(row => /\|\s*POST\s*\|/.test(row) && row.includes('/hooks/order')),
      "post's request table has the webhook's POST row"
    )
    const status = service.tokens().find(t => t.tunnel_user === user)?.status
    const after = await sendThroughFront(tunnel.frontPort, url, { headers: withHeader })
    say(
      `  after post: tunnel process ${isAlive(saved.pid) ? 'STILL RUNNING' : 'gone'}, ` +
        `token ${status}, the URL answers ${after.status}`
    )
    check(!isAlive(saved.pid), 'post stopped the tunnel process')
    check(status === 'revoked' && after.status === 502, 'post revoked the token and closed the URL')

    const harPath = main.outputs['request-log'] ?? ''
    const kept = keepHar(harPath)
    const entries = harEntries(kept)
    say(`\n  The request log: ${harPath}`)
    say(`  kept (as upload-artifact would) at ${kept}: HAR 1.2, ${entries.length} entries`)
    check(
      entries.some(e => e.method === 'POST' && new URL(e.url).pathname === '/hooks/order'),
      'the HAR holds the webhook POST'
    )
    const harText = readFileSync(kept, 'utf8')
    check(
      [apiKey, token, gateSecret].every(secret => secret === '' || !harText.includes(secret)),
      'no secret in the HAR'
    )

    const appUrl = `http://127.0.0.1:${app.port}`
    const before = app.arrivals.length
    say(`\n  On a laptop:  $ tunnel-credentials replay ${kept} --to ${appUrl}`)
    const replay = await replayWithCli(node, kept, appUrl)
    say(indent(`${replay.output}\n(exit ${replay.code})`))
    const replayed = app.arrivals.slice(before)
    check(
      replay.code === 0,
      'replay exited 0: every replayed request got its recorded status class'
    )
    check(
      replayed.some(r => r.target === '/hooks/order' && r.body.toString() === WEBHOOK_BODY),
      'replay sent the webhook again, body and all'
    )

    await job.end()
    ended = true
    for (const step of [main, post]) {
      const leaks = findSecretLeaks(step, {
        secrets: [apiKey, token, gateSecret],
        mustMask: step === main ? [gateSecret] : [],
        maskFirst: [apiKey]
      })
      check(
        leaks.length === 0,
        `no secret visible in the expose ${step.step} step (${leaks.join('; ')})`
      )
    }
    const shown = printed.join('\n')
    check(
      [apiKey, token, gateSecret].every(secret => secret === '' || !shown.includes(secret)),
      'no secret in what the expose demo printed'
    )
  } catch (error) {
    failures.push(`the expose demo ran through (${String(error)})`)
  } finally {
    if (!ended) await job.end().catch(() => undefined)
    await app.close()
    await service.close()
  }
  return failures
}
