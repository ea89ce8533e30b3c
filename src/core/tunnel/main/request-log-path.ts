/**
 * Where a runner's request log goes when no option names it (GitHub): a HAR file directly in the
 * temp root, named after the run and the tunnel's folder, outside that folder, which post removes.
 * An `actions/upload-artifact` step (which runs before post) finds it there; the runner empties
 * the temp root after the job. Kept apart from the rest of the tunnel code: the GitHub host
 * imports it on every step's start.
 */
import { basename, join } from 'node:path'

export const REQUEST_LOG_PREFIX = 'tunnel-credentials-requests-'

/** `<temp root>/tunnel-credentials-requests-<run id>-<tunnel folder's name>.har`. */
export function requestLogInTempRoot(
  tempRoot: string,
  runId: string | undefined,
  tunnelDir: string
): string {
  // The run id comes from the environment: only a plain name goes into a file name.
  const run = runId !== undefined && /^[A-Za-z0-9_-]{1,40}$/.test(runId) ? runId : 'local'
  return join(tempRoot, `${REQUEST_LOG_PREFIX}${run}-${basename(tunnelDir)}.har`)
}
