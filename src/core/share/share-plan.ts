/**
 * The `share` option read and checked before any request: which mode, with what sealed blob, for
 * which run. Every refusal is one ExplainedError that names the option and says what to do.
 */
import { ExplainedError } from '../errors.js'
import type { OptionSource, ShareScope } from '../host.js'
import { API_KEY_OPTION } from '../options/option-facts.js'
import type { KindChoice } from '../assembly/choice.js'
import { capitalised, optionNamed } from '../settings/option-values.js'
import type { KindName } from '../settings/types.js'
import { readShareMode } from './share-mode.js'

/** What main does about sharing; `off` is today's step, unchanged. */
export type SharePlan =
  /**
   * `notice`: sharing was asked for, but `credential: auto` fell back to free (no API key).
   * `warning`: shared-credential is set, and ignored.
   */
  | { mode: 'off'; notice?: string; warning?: string }
  | { mode: 'create'; scope: ShareScope; warning?: string }
  | { mode: 'use'; scope: ShareScope; blob: string }
  | { mode: 'revoke'; scope: ShareScope; blob: string }
  /** `share: revoke` with nothing to open: the step succeeds with this notice, sending nothing. */
  | { mode: 'revoke'; notice: string }

/** Why a kind other than cicd cannot be shared, said in the refusal. */
const NOT_SHAREABLE: Record<Exclude<KindName, 'cicd'>, string> = {
  free: 'a free credential has no API key to seal it with',
  'ssh-key': 'sharing it would put a private key in the output',
  existing: 'an existing credential is already yours to pass on'
}

/**
 * The plan for main, from the options, the kind they chose, and the run the host names (none
 * where sharing cannot work). Throws an ExplainedError for a refusal.
 */
export function readSharePlan(
  options: OptionSource,
  choice: KindChoice,
  scope: ShareScope | undefined
): SharePlan {
  const mode = readShareMode(options)
  const blob = options.read('shared-credential').trim()
  if (mode === 'off') {
    // Most likely a job that meant to use the run's credential: say so, rather than provision quietly.
    return blob === ''
      ? { mode }
      : {
          mode,
          warning: `${optionNamed(options, 'shared-credential')} is set, but ${options.label('share')} is off, so it is ignored and this job provisions a credential of its own. To open it, set ${options.label('share')} to use.`
        }
  }
  // `Input share is create`, `--share is use`: the start of each refusal below.
  const share = `${optionNamed(options, 'share')} is ${mode}`
  // A fork's pull request gets no secrets: `auto` then runs every job on its own free credential.
  if (choice.auto && choice.kind === 'free') {
    const why = `${options.label(API_KEY_OPTION)} is empty (as in a pull request from a fork), and sharing needs the API key`
    if (mode !== 'revoke') {
      return {
        mode: 'off',
        notice: `Not sharing: ${why}. ${capitalised(options.label('credential'))} is auto, so this job uses its own free credential.`
      }
    }
    if (blob === '') {
      return {
        mode,
        notice: `Nothing to revoke: ${options.label('shared-credential')} is empty, so the setup job shared nothing; ${options.label(API_KEY_OPTION)} is empty too (as in a pull request from a fork).`
      }
    }
    throw new ExplainedError(
      `${share}, but ${why} to open ${options.label('shared-credential')}. Pass the API key to this job.`
    )
  }
  if (choice.kind !== 'cicd') {
    throw new ExplainedError(
      `${share}, which works only with ${options.label('credential')} cicd: ${NOT_SHAREABLE[choice.kind]}. Set ${options.label('share')} to off.`
    )
  }
  if (scope === undefined) {
    throw new ExplainedError(
      `${share}, but sharing works on GitHub Actions and GitLab CI, where every job sees the run's identity; set ${options.label('share')} to off.`
    )
  }
  if (mode === 'create') {
    if (options.read('ttl-minutes').trim() === '') {
      throw new ExplainedError(
        `${share}, which needs ${options.label('ttl-minutes')}: a shared credential lives for the run, so it must expire. Set it to the run's longest duration in minutes.`
      )
    }
    return blob === ''
      ? { mode, scope }
      : {
          mode,
          scope,
          warning: `${optionNamed(options, 'shared-credential')} is ignored: ${options.label('share')} create provisions the run's credential rather than open one.`
        }
  }
  if (options.read(API_KEY_OPTION).trim() === '') {
    throw new ExplainedError(
      `${share}, which needs ${options.label(API_KEY_OPTION)}: the shared credential opens only with the API key it was sealed with. Pass the same secret as the setup job.`
    )
  }
  if (mode === 'revoke' && blob === '') {
    return {
      mode,
      notice: `Nothing to revoke: ${options.label('shared-credential')} is empty, so the setup job shared nothing (it failed before it shared a credential, or did not run).`
    }
  }
  if (mode === 'use' && blob === '') {
    const given = options.label('shared-credential')
    // Where the value comes from differs by CI system, not by host: the CLI runs on both.
    throw new ExplainedError(
      `${share}, but ${given} is empty, so there is nothing to open: the setup job shared nothing. Check that this job has the setup job in its needs and that ${given} gets that job's shared-credential output: on GitHub Actions \${{ needs.<setup job>.outputs.shared-credential }}, on GitLab CI the setup job's dotenv report (shared.env), which sets SVC_SHARED_CREDENTIAL in every job that needs it.`
    )
  }
  // Each branch narrows `mode`, so each is its own member of the union.
  return mode === 'use' ? { mode, scope, blob } : { mode, scope, blob }
}
