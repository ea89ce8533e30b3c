/** How scripts/node24.ts starts npm: without a shell, so that it works on Windows too. */
import { execFileSync } from 'node:child_process'
import { npmInvocation } from '../scripts/node24.js'

const never = () => false

describe('npmInvocation', () => {
  it('runs the npm CLI that npm names in npm_execpath with this Node, no shell', () => {
    const env = { npm_execpath: '/opt/node/lib/node_modules/npm/bin/npm-cli.js' }
    expect(npmInvocation(env, 'linux', '/opt/node/bin/node', never)).toEqual({
      file: '/opt/node/bin/node',
      args: ['/opt/node/lib/node_modules/npm/bin/npm-cli.js']
    })
    const windowsEnv = {
      npm_execpath: 'C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npm-cli.js'
    }
    expect(
      npmInvocation(windowsEnv, 'win32', 'C:\\Program Files\\nodejs\\node.exe', never)
    ).toEqual({
      file: 'C:\\Program Files\\nodejs\\node.exe',
      args: ['C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npm-cli.js']
    })
  })

  it("ignores another package manager's npm_execpath and finds npm beside Node", () => {
    const env = { npm_execpath: 'C:\\pnpm\\bin\\pnpm.cjs' }
    const cli = 'C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npm-cli.js'
    const exists = (path: string) => path === cli
    expect(npmInvocation(env, 'win32', 'C:\\Program Files\\nodejs\\node.exe', exists)).toEqual({
      file: 'C:\\Program Files\\nodejs\\node.exe',
      args: [cli]
    })
    const posixCli = '/usr/local/lib/node_modules/npm/bin/npm-cli.js'
    expect(npmInvocation({}, 'darwin', '/usr/local/bin/node', path => path === posixCli)).toEqual({
      file: '/usr/local/bin/node',
      args: [posixCli]
    })
  })

  it('falls back to npm on the PATH where that needs no shell, and says what to do on Windows', () => {
    expect(npmInvocation({}, 'linux', '/somewhere/node', never)).toEqual({ file: 'npm', args: [] })
    expect(() => npmInvocation({}, 'win32', 'D:\\node\\node.exe', never)).toThrow(
      /Cannot find npm's CLI to install Node 24 .*set RUNNER_NODE to a Node 24 binary/
    )
  })

  it('starts this machine’s npm', () => {
    const npm = npmInvocation()
    const version = execFileSync(npm.file, [...npm.args, '--version'], { encoding: 'utf8' })
    expect(version.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })
})
