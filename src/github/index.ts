import { reportUnexpected } from './last-resort.js'
import { runMain } from './main.js'
import { runPost } from './post.js'
import { isPostStep } from './state.js'

// action.yml points main and post at this one bundle; saved state tells which step this is.
const step = isPostStep() ? 'post' : 'main'
try {
  await (step === 'post' ? runPost() : runMain())
} catch (error) {
  reportUnexpected(step, error)
}
