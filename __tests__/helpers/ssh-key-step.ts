/** What the ssh-key step tests share: the service's paths, the step's inputs and run, a RUNNER_TEMP. */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { API_KEY, BASE_URL } from './in-process-step.js'

export const ORIGIN = 'https://credentials.example.test'
export const UPLOAD = '/functions/v1/keys-upload'
export const LIST = '/functions/v1/user-keys-list'
export const REVOKE = '/functions/v1/revoke-ssh-key'

export const INPUTS = {
  credential: 'ssh-key',
  'api-key': API_KEY,
  'base-url': BASE_URL,
  'client-id': 'client-77',
  'tunnel-host': 'tunnel.example.test'
}

export const RUN = {
  GITHUB_REPOSITORY: 'octo-org/web-shop',
  GITHUB_RUN_ID: '4242',
  GITHUB_RUN_ATTEMPT: '2'
}

/** A fresh RUNNER_TEMP for each test, removed after it. */
export function useRunnerTemp(): () => string {
  let runnerTemp = ''
  beforeEach(() => {
    runnerTemp = mkdtempSync(join(tmpdir(), 'runner-temp-'))
  })
  afterEach(() => rmSync(runnerTemp, { recursive: true, force: true }))
  return () => runnerTemp
}

/** OpenSSH's fingerprint of a public key line, computed here independently of the action. */
export function fingerprintOfLine(line: string): string {
  const blob = Buffer.from(line.split(' ')[1], 'base64')
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`
}
