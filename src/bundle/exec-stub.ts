/**
 * Stands in for `@actions/exec` in the bundle (mapped in src/tsconfig.json, like undici).
 * `@actions/core` imports it, with `@actions/io` and `child_process`, at load time, only for
 * `core.platform.getDetails()`, which this action never calls. Leaving them out saves the
 * runner evaluating them, and loading child_process, on every step.
 */
const unsupported = (): never => {
  throw new Error(
    '@actions/exec is not bundled with this action: core.platform.getDetails() is unsupported here.'
  )
}

export const exec = unsupported
export const getExecOutput = unsupported
