import { provision } from '../core/provision.js'
import { revoke } from '../core/revoke.js'
import { githubHost } from './host.js'
import { reportUnexpected } from './last-resort.js'
import { isPostStep, markMainStarted } from './step-marker.js'

// action.yml points main and post at this one bundle; saved state tells which step this is.
const step = isPostStep() ? 'post' : 'main'
try {
  if (step === 'post') {
    await revoke(githubHost())
  } else {
    markMainStarted()
    await provision(githubHost())
  }
} catch (error) {
  reportUnexpected(step, error)
}
