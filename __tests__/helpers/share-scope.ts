/** A run every job sees, as the GitHub host names it (Host.shareScope), for the share tests. */
import type { ShareScope } from '../../src/core/host.js'

export const RUN_SCOPE: ShareScope = {
  system: 'github',
  repository: 'octo/web-shop',
  runId: '9001',
  variables: 'GITHUB_REPOSITORY and GITHUB_RUN_ID'
}
