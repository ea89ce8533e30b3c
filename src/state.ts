import * as core from '@actions/core'
import type { Flavour } from './credential.js'

/** What main hands to post. Nothing secret: the post step reads the API key from its input again. */
export interface SavedCredential {
  flavour: Flavour
  tunnelUser: string
  baseUrl: string
  expiresAt?: string
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

export function loadCredential(): SavedCredential | undefined {
  const raw = core.getState(CREDENTIAL)
  if (!raw) return undefined
  try {
    const value = JSON.parse(raw) as Partial<SavedCredential>
    if (typeof value.tunnelUser !== 'string' || typeof value.baseUrl !== 'string') return undefined
    return {
      flavour: value.flavour === 'free' ? 'free' : 'cicd',
      tunnelUser: value.tunnelUser,
      baseUrl: value.baseUrl,
      ...(typeof value.expiresAt === 'string' && { expiresAt: value.expiresAt })
    }
  } catch {
    return undefined
  }
}

/** Where post finds the tunnel process main started: pid and file paths, nothing secret. */
export interface SavedTunnel {
  pid: number
  logPath: string
  statsPath: string
  stopPath: string
}

const TUNNEL = 'tunnel'

export function saveTunnel(saved: SavedTunnel): void {
  core.saveState(TUNNEL, JSON.stringify(saved))
}

export function loadTunnel(): SavedTunnel | undefined {
  const raw = core.getState(TUNNEL)
  if (!raw) return undefined
  try {
    const value = JSON.parse(raw) as Partial<SavedTunnel>
    const { pid, logPath, statsPath, stopPath } = value
    if (
      typeof pid !== 'number' ||
      !Number.isSafeInteger(pid) ||
      pid <= 0 ||
      typeof logPath !== 'string' ||
      typeof statsPath !== 'string' ||
      typeof stopPath !== 'string'
    ) {
      return undefined
    }
    return { pid, logPath, statsPath, stopPath }
  } catch {
    return undefined
  }
}
