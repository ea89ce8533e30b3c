/** Everything one running stand-in remembers. In memory only: a restart starts from the seed. */
import type { AnswerShape } from './answer-shape.js'
import type { KeyRing } from './keys.js'
import type { ProjectRegistry } from './projects.js'
import type { SlidingWindowLimiter } from './rate-limit.js'
import type { SshKeyStore } from './ssh-keys.js'
import type { TokenStore } from './tokens.js'
import type { PublicNaming } from './tunnel/naming.js'

export interface ServiceState {
  now: () => number
  tunnelHost: string
  tunnelPort: number
  /** Which shape credential-provision answers in. */
  answerShape: AnswerShape
  /** How the tunnel server names public hosts, as the product's answer tells. */
  naming: PublicNaming
  keys: KeyRing
  jwts: Set<string>
  projects: ProjectRegistry
  tokens: TokenStore
  sshKeys: SshKeyStore
  limits: {
    /** credential-provision: 60 per hour per API key. */
    provision: SlidingWindowLimiter
    /** create-ephemeral-token: 10 per hour per client address. */
    ephemeral: SlidingWindowLimiter
    /** api-keys-create: 20 per hour per user (account). */
    apiKeysCreate: SlidingWindowLimiter
    /** keys-upload: 20 per hour per user (account). */
    keysUpload: SlidingWindowLimiter
  }
}
