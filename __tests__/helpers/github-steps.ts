/**
 * The GitHub steps as src/github/index.ts runs them, with a test's clock and tunnel launch, for
 * runInProcess (which sets the runner's variables before the host reads them). A test file that
 * uses nock imports this dynamically, after nock.
 */
import { systemClock, type Clock } from '../../src/core/clock.js'
import type { KeeperLaunch } from '../../src/core/host.js'
import { githubHost } from '../../src/github/host.js'
import { markMainStarted } from '../../src/github/step-marker.js'
import { mainStep, postStep } from '../../src/github/steps.js'

/** The main step; `launch` replaces the bundle's keeper, e.g. with its TypeScript source. */
export function runMain(clock: Clock = systemClock, launch?: Partial<KeeperLaunch>): Promise<void> {
  markMainStarted()
  const host = githubHost()
  const bundled = host.keeperLaunch
  return mainStep({ ...host, clock, keeperLaunch: () => ({ ...bundled(), ...launch }) })
}

export function runPost(clock: Clock = systemClock): Promise<void> {
  return postStep({ ...githubHost(), clock })
}
