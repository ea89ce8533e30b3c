import { githubHost } from './host.js'
import { reportUnexpected } from './last-resort.js'
import { isPostStep, markMainStarted } from './step-marker.js'
import { mainStep, postStep } from './steps.js'

// action.yml points main and post at this one bundle; saved state tells which step this is.
const step = isPostStep() ? 'post' : 'main'
try {
  if (step === 'post') {
    await postStep(githubHost())
  } else {
    markMainStarted()
    await mainStep(githubHost())
  }
} catch (error) {
  reportUnexpected(step, error)
}
