/**
 * Which CI system runs the CLI, from its own standard variables: how it can hide a value made at
 * run time (most cannot), and who runs, to name SSH keys and fill messages.
 *
 * A masking line (`::add-mask::VALUE`, `##vso[task.setsecret]VALUE`) prints the secret itself,
 * hidden only where its reader obeys it. So masking needs the system confirmed by more than one
 * of its own variables, and no sign of another system: a GITHUB_ACTIONS=true left in a GitLab
 * job would otherwise print the key in clear.
 */
import { hostname } from 'node:os'
import type { RunIdentity, ShareScope } from '../core/host.js'
import { findBuildkiteAgent, redactWithAgent } from './buildkite-agent.js'

export interface CiSystem {
  name: string
  run: RunIdentity
  /**
   * How the system is told to hide a secret: a line on stdout that the system reads and never
   * shows, or a command; undefined when it has no such way, or when masking is off.
   */
  masking?: { describe: string; hide(secret: string, stdout: (line: string) => void): boolean }
  /** Why masking is off on a system that has it (its signs disagree, or its agent is not found). */
  maskingOff?: string
  /**
   * The run every job of a pipeline sees, which `share` binds a credential to: only on GitHub
   * Actions and GitLab CI, confirmed as masking is (all their variables, no sign of another).
   */
  shareScope?: ShareScope
  /** Why there is no share scope on a system that has one (its signs disagree or are missing). */
  shareOff?: string
}

type Env = NodeJS.ProcessEnv
type Masking = NonNullable<CiSystem['masking']>

interface Detector {
  name: string
  /** The variable that names the system, and whether it says so. */
  flag: string
  detect(env: Env): boolean
  /** Variables the system always sets besides its flag: all must be there before masking or sharing. */
  confirmations?: string[]
  run(env: Env): RunIdentity
  /** The system's masking, or why it cannot work here. */
  masking?(env: Env): Masking | { missing: string }
  /** The variables that name the run every job sees, on the systems where `share` works. */
  share?: { system: ShareScope['system']; repository: string; runId: string }
}

const DETECTORS: Detector[] = [
  {
    name: 'GitHub Actions',
    flag: 'GITHUB_ACTIONS',
    detect: env => env.GITHUB_ACTIONS === 'true',
    confirmations: ['GITHUB_RUN_ID', 'GITHUB_WORKSPACE', 'RUNNER_TEMP'],
    share: { system: 'github', repository: 'GITHUB_REPOSITORY', runId: 'GITHUB_RUN_ID' },
    run: env => ({
      repository: env.GITHUB_REPOSITORY,
      runId: env.GITHUB_RUN_ID,
      runAttempt: env.GITHUB_RUN_ATTEMPT
    }),
    masking: () => ({
      describe: '::add-mask::',
      hide: (secret, stdout) => (stdout(`::add-mask::${secret}`), true)
    })
  },
  {
    name: 'GitLab CI',
    flag: 'GITLAB_CI',
    detect: env => env.GITLAB_CI === 'true',
    // Not for masking, which GitLab has none of for values made in a job; for sharing.
    confirmations: ['CI_JOB_ID'],
    share: { system: 'gitlab', repository: 'CI_PROJECT_PATH', runId: 'CI_PIPELINE_ID' },
    run: env => ({
      repository: env.CI_PROJECT_PATH,
      runId: env.CI_PIPELINE_ID,
      runAttempt: env.CI_JOB_ID
    })
  },
  {
    name: 'Azure Pipelines',
    flag: 'TF_BUILD',
    detect: env => env.TF_BUILD?.toLowerCase() === 'true',
    confirmations: ['AGENT_ID', 'BUILD_BUILDID', 'SYSTEM_TEAMFOUNDATIONCOLLECTIONURI'],
    run: env => ({
      repository: env.BUILD_REPOSITORY_NAME,
      runId: env.BUILD_BUILDID,
      runAttempt: env.SYSTEM_JOBATTEMPT
    }),
    masking: () => ({
      describe: '##vso[task.setsecret]',
      hide: (secret, stdout) => (stdout(`##vso[task.setsecret]${secret}`), true)
    })
  },
  {
    name: 'Buildkite',
    flag: 'BUILDKITE',
    detect: env => env.BUILDKITE === 'true',
    confirmations: ['BUILDKITE_BUILD_ID', 'BUILDKITE_JOB_ID'],
    run: env => ({
      repository: env.BUILDKITE_PIPELINE_SLUG,
      runId: env.BUILDKITE_BUILD_NUMBER,
      runAttempt: env.BUILDKITE_RETRY_COUNT
    }),
    masking: env => {
      const agent = findBuildkiteAgent(env)
      if ('missing' in agent) return agent
      return {
        describe: 'buildkite-agent redactor add',
        hide: secret => redactWithAgent(agent.path, env, secret)
      }
    }
  },
  {
    name: 'Jenkins',
    flag: 'JENKINS_URL or JENKINS_HOME',
    detect: env => Boolean(env.JENKINS_URL || env.JENKINS_HOME),
    run: env => ({ repository: env.JOB_NAME, runId: env.BUILD_NUMBER })
  },
  {
    name: 'CircleCI',
    flag: 'CIRCLECI',
    detect: env => env.CIRCLECI === 'true',
    run: env => ({
      repository:
        env.CIRCLE_PROJECT_USERNAME && env.CIRCLE_PROJECT_REPONAME
          ? `${env.CIRCLE_PROJECT_USERNAME}/${env.CIRCLE_PROJECT_REPONAME}`
          : undefined,
      runId: env.CIRCLE_BUILD_NUM
    })
  },
  {
    name: 'Bitbucket Pipelines',
    flag: 'BITBUCKET_BUILD_NUMBER',
    detect: env => Boolean(env.BITBUCKET_BUILD_NUMBER),
    run: env => ({ repository: env.BITBUCKET_REPO_FULL_NAME, runId: env.BITBUCKET_BUILD_NUMBER })
  }
]

export function detectCiSystem(env: Env, now: () => number = Date.now): CiSystem {
  const signs = DETECTORS.filter(detector => detector.detect(env))
  // With signs of two systems, the one that cannot mask is assumed: a masking line is harmless
  // only where its reader obeys it.
  const found = signs.find(detector => detector.masking === undefined) ?? signs[0]
  if (found === undefined) return { name: 'an unknown CI system', run: fallbackRun(now) }
  const run = found.run(env)
  const others = signs.filter(detector => detector !== found)
  const system: CiSystem = {
    name: found.name,
    // Without its own variables (a local try-out), the host and the time still tell runs apart.
    run: run.repository || run.runId ? run : fallbackRun(now),
    ...shareScopeOf(found, others, env)
  }
  if (others.length > 0) {
    return { ...system, maskingOff: disagreement(others) }
  }
  if (found.masking === undefined) return system
  const missing = (found.confirmations ?? []).filter(name => !env[name])
  if (missing.length > 0) return { ...system, maskingOff: notConfirmed(found, missing) }
  const masking = found.masking(env)
  return 'missing' in masking ? { ...system, maskingOff: masking.missing } : { ...system, masking }
}

/**
 * The run `share` binds to, where the system names one and is confirmed: a credential sealed for
 * a run the CLI only guessed would open in no other job, or in the wrong one.
 */
function shareScopeOf(
  found: Detector,
  others: Detector[],
  env: Env
): Pick<CiSystem, 'shareScope' | 'shareOff'> {
  const { share } = found
  if (share === undefined) return {}
  if (others.length > 0) return { shareOff: disagreement(others) }
  const value = (name: string) => env[name]?.trim() ?? ''
  const needed = [...new Set([...(found.confirmations ?? []), share.repository, share.runId])]
  const missing = needed.filter(name => value(name) === '')
  if (missing.length > 0) return { shareOff: notConfirmed(found, missing) }
  return {
    shareScope: {
      system: share.system,
      repository: value(share.repository),
      runId: value(share.runId),
      variables: `${share.repository} and ${share.runId}`
    }
  }
}

function disagreement(others: Detector[]): string {
  const also = others.map(other => `${other.flag} (${other.name})`).join(' and ')
  return `${also} is set too, so the signs disagree`
}

function notConfirmed(found: Detector, missing: string[]): string {
  return `${found.flag} is set but ${missing.join(', ')}, which ${found.name} always sets, ${missing.length === 1 ? 'is' : 'are'} not`
}

function fallbackRun(now: () => number): RunIdentity {
  return { repository: hostname(), runId: String(Math.floor(now() / 1000)) }
}
