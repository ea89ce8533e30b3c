import { realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { KeeperLaunch } from '../core/host.js'
import { keeperEnvironment } from '../core/tunnel/main/keeper-environment.js'

/**
 * The package's tunnel process: dist/tunnel/index.cjs, beside dist/cli/. npx and npm start the
 * CLI through a link in node_modules/.bin, so the path is resolved through it first.
 */
export function bundledKeeper(env: NodeJS.ProcessEnv): KeeperLaunch {
  const cliDir = dirname(realpathSync(process.argv[1]))
  return {
    scriptPath: join(cliDir, '..', 'tunnel', 'index.cjs'),
    environment: keeperEnvironment(env)
  }
}
