/**
 * The shared-credential file: what `provision --share create` leaves for the run's other jobs.
 * One line, `SVC_SHARED_CREDENTIAL=SEALED`, and nothing else, so that GitLab reads it as the setup
 * job's dotenv report and hands the variable to every later job of the pipeline, where
 * `--share use` and `--share revoke` read it. It holds no secret (opening it needs the API key),
 * so revoke leaves it in place: GitLab collects a job's artifacts after its after_script.
 */
import { rmSync } from 'node:fs'
import { cliVariable } from '../core/options/option-facts.js'
import { readRegularFile, writePrivateFile } from './private-file.js'

export const SHARED_VARIABLE = cliVariable('shared-credential')
/** A sealed credential's characters (base64url parts joined by dots): never a line break. */
const SEALED = '[A-Za-z0-9_.-]+'
const OWN_TEXT = new RegExp(`^${SHARED_VARIABLE}=${SEALED}\\n$`)
const MAX_BYTES = 64 * 1024
/**
 * GitLab refuses a dotenv report above 5 KB when the job ends, after this job's cleanup has left
 * the credential to the run: refused here instead, in the hand-over, which then revokes it at once.
 */
const DOTENV_MAX_BYTES = 5 * 1024

export function sharedFileText(sealed: string): string {
  const text = `${SHARED_VARIABLE}=${sealed}\n`
  // The core seals only these characters; anything else would add a line to a dotenv file.
  if (!OWN_TEXT.test(text)) throw new Error('the sealed credential holds characters it never has')
  if (text.length > DOTENV_MAX_BYTES) {
    throw new Error(
      `the sealed credential takes ${text.length} bytes, more than the ${DOTENV_MAX_BYTES} GitLab accepts in a dotenv report`
    )
  }
  return text
}

export function writeSharedFile(path: string, sealed: string): void {
  writePrivateFile(path, sharedFileText(sealed))
}

/** A file this tool wrote: exactly the one line, so a project's own `.env` is never replaced. */
export function isOwnSharedFile(path: string): boolean {
  const text = readRegularFile(path, MAX_BYTES)
  return text !== undefined && OWN_TEXT.test(text)
}

/** Deletes the file --share create names, if this tool wrote it; anything else stays. */
export function removeSharedFile({
  sharedCredentialFile
}: {
  sharedCredentialFile?: string
}): void {
  if (sharedCredentialFile !== undefined && isOwnSharedFile(sharedCredentialFile)) {
    rmSync(sharedCredentialFile, { force: true })
  }
}
