import * as core from '@actions/core'

const POST_MARKER = 'isPost'

/** The runner gives the post step the state main saved; main sees none, which is how one bundle serves both. */
export function isPostStep(): boolean {
  return core.getState(POST_MARKER) === 'true'
}

/** Saved first thing in main, so that even a main that fails early leads to a post that does nothing. */
export function markMainStarted(): void {
  core.saveState(POST_MARKER, 'true')
}
