import { realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { TunnelProcessLaunch } from '../core/host.js'
import { keeperEnvironment } from '../core/tunnel/keeper-environment.js'

/**
 * The package's tunnel process: dist/tunnel/index.cjs, beside dist/cli/. npx and npm start the
 * CLI through a link in node_modules/.bin, so the path is resolved through it first.
 */
export function bundledTunnelProcess(env: NodeJS.ProcessEnv): TunnelProcessLaunch {
  const cliDir = dirname(realpathSync(process.argv[1]))
  return {
    scriptPath: join(cliDir, '..', 'tunnel', 'index.cjs'),
    environment: keeperEnvironment(env)
  }
}
