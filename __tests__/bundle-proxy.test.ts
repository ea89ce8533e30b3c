/**
 * The bundle maps `undici` and `@actions/exec` to stubs (src/tsconfig.json paths, src/bundle/),
 * so `@actions/http-client` and `@actions/core` load without them, and `tunnel` to a module that
 * loads the proxy agent only when a proxy applies. Proxies must still work in what the runner runs:
 * dist/index.cjs under Node 24, with https_proxy set, asks a local proxy for a CONNECT tunnel.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureNode24, repoRoot, runStep } from '../scripts/runner.js'
import { startRecordingProxy, type RecordingProxy } from './helpers/connect-proxy.js'
import { exec, getExecOutput } from '../src/bundle/exec-stub.js'
import { ProxyAgent } from '../src/bundle/undici-stub.js'

const KEY = `sk_${'c1cd'.repeat(16)}`
const proxies: RecordingProxy[] = []

beforeAll(() => {
  ensureNode24()
}, 180_000)
afterAll(async () => {
  await Promise.all(proxies.map(proxy => proxy.close()))
})

async function connectProxy(): Promise<RecordingProxy> {
  const proxy = await startRecordingProxy()
  proxies.push(proxy)
  return proxy
}

function runMain(env: Record<string, string>) {
  return runStep({
    step: 'main',
    inputs: {
      'api-key': KEY,
      project: 'demo-app',
      'base-url': 'https://credentials.example.test',
      'max-attempts': '1',
      'timeout-seconds': '5'
    },
    secrets: [KEY],
    env,
    timeoutMs: 20_000
  })
}

describe('the stubs', () => {
  it('say why when something tries to use undici', () => {
    expect(() => new ProxyAgent()).toThrow(
      'undici is not bundled with this action: HttpClient.getAgentDispatcher() is unsupported here.'
    )
  })

  it('say why when something tries to use @actions/exec', () => {
    const message =
      '@actions/exec is not bundled with this action: core.platform.getDetails() is unsupported here.'
    expect(() => exec()).toThrow(message)
    expect(() => getExecOutput()).toThrow(message)
  })

  it('are what the bundle holds instead of undici and @actions/exec', () => {
    const bundle = readFileSync(join(repoRoot, 'dist', 'index.cjs'), 'utf8')
    expect(bundle).toContain('undici is not bundled with this action')
    // undici's own classes and symbols, exec's ToolRunner and child_process: none made it in.
    // (The exec stub itself is tree-shaken away: nothing the action calls reaches it.)
    expect(bundle).not.toMatch(/DispatcherBase|Symbol\('undici|class ProxyAgent extends/)
    expect(bundle).not.toMatch(/ToolRunner/)
    // child_process only as webpack's factory for the external module, which runs when the
    // tunnel chunk (loaded by steps with `expose` only) first needs it: never at start.
    expect(bundle.split('\n').filter(line => line.includes('child_process'))).toEqual([
      'module.exports = require("node:child_process");'
    ])
  })
})

/**
 * Runs main with a preload that writes, at exit, which of Node's own modules the process loaded:
 * the `tunnel` package is the only thing in the bundle that loads `assert`.
 */
async function builtinsLoadedByMain(env: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-builtins-'))
  try {
    const preload = join(dir, 'record-builtins.cjs')
    const list = join(dir, 'builtins.txt')
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')))\n`
    )
    await runMain({ ...env, NODE_OPTIONS: `--require ${preload}` })
    return readFileSync(list, 'utf8').split('\n')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('the proxy agent (the tunnel package)', () => {
  it('is not loaded when no proxy is configured', async () => {
    expect(await builtinsLoadedByMain({})).not.toContain('NativeModule assert')
  }, 30_000)

  it('is loaded when https_proxy applies', async () => {
    const proxy = await connectProxy()
    expect(await builtinsLoadedByMain({ https_proxy: proxy.url })).toContain('NativeModule assert')
  }, 30_000)
})

describe('the bundled main step behind a proxy (Node 24)', () => {
  it('asks https_proxy for a tunnel to the service', async () => {
    const proxy = await connectProxy()
    const main = await runMain({ https_proxy: proxy.url })
    expect(proxy.targets).toEqual(['credentials.example.test:443'])
    expect(main.exitCode).toBe(1)
    expect(main.stdout).not.toContain('undici is not bundled')
    expect(main.env).toEqual({})
  }, 30_000)

  it('goes around the proxy for hosts in no_proxy', async () => {
    const proxy = await connectProxy()
    const main = await runMain({ https_proxy: proxy.url, no_proxy: 'localhost,.example.test' })
    // Straight to the host, which does not resolve here: the step fails, and the proxy is unasked.
    expect(proxy.targets).toEqual([])
    expect(main.exitCode).toBe(1)
    expect(main.stdout).not.toContain('undici is not bundled')
  }, 30_000)
})
