import * as core from '@actions/core'
import { isCleanIdentifier, type Flavour } from './credential.js'
import { isTunnelDir, tunnelRoot } from './tunnel/files.js'

/**
 * What main hands to post. Nothing secret: the post step reads the API key from its input again.
 * State can be written by others (an earlier step's save-state command, STATE_ variables), so
 * post trusts it only to name what to revoke: never where to send the key, never to skip a revoke.
 */
export interface SavedCredential {
  flavour: Flavour
  tunnelUser: string
  /** Where main sent the key; post only compares it with its own base-url input. */
  baseUrl?: string
  expiresAt?: string
  /** Issued, then refused by main: post revokes it even with `revoke: false`. */
  rejected?: boolean
}

const POST_MARKER = 'isPost'
const CREDENTIAL = 'credential'

/** The runner gives the post step the state main saved; main sees none, which is how one bundle serves both. */
export function isPostStep(): boolean {
  return core.getState(POST_MARKER) === 'true'
}

/** Saved first thing in main, so that even a main that fails early leads to a post that does nothing. */
export function markMainStarted(): void {
  core.saveState(POST_MARKER, 'true')
}

export function saveCredential(saved: SavedCredential): void {
  core.saveState(CREDENTIAL, JSON.stringify(saved))
}

/** Main revoked what it saved: nothing is left for post. */
export function clearCredential(): void {
  core.saveState(CREDENTIAL, '')
}

export function loadCredential(): SavedCredential | undefined {
  const raw = core.getState(CREDENTIAL)
  if (!raw) return undefined
  try {
    const value = JSON.parse(raw) as Partial<Record<keyof SavedCredential, unknown>>
    if (!isCleanIdentifier(value.tunnelUser)) return undefined
    return {
      flavour: value.flavour === 'free' ? 'free' : 'cicd',
      tunnelUser: value.tunnelUser,
      ...(typeof value.baseUrl === 'string' && { baseUrl: value.baseUrl }),
      ...(typeof value.expiresAt === 'string' && { expiresAt: value.expiresAt }),
      ...(value.rejected === true && { rejected: true })
    }
  } catch {
    return undefined
  }
}

/** Where post finds the tunnel process main started: its pid and directory, nothing secret. */
export interface SavedTunnel {
  pid: number
  /** `RUNNER_TEMP/tunnel-XXXXXX`, holding its log, stats and stop files. */
  dir: string
}

const TUNNEL = 'tunnel'

export function saveTunnel(saved: SavedTunnel): void {
  core.saveState(TUNNEL, JSON.stringify(saved))
}

/** The saved tunnel, if it names a positive pid and a tunnel directory under RUNNER_TEMP. */
export function loadTunnel(): SavedTunnel | undefined {
  const raw = core.getState(TUNNEL)
  if (!raw) return undefined
  try {
    const { pid, dir } = JSON.parse(raw) as Partial<Record<keyof SavedTunnel, unknown>>
    if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined
    if (typeof dir !== 'string' || !isTunnelDir(dir, tunnelRoot())) return undefined
    return { pid, dir }
  } catch {
    return undefined
  }
}
