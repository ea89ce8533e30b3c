/**
 * Which CI system runs the CLI, from its own standard variables: how it can hide a value made at
 * run time (most cannot), and who runs, to name SSH keys and fill messages.
 */
import { spawnSync } from 'node:child_process'
import { hostname } from 'node:os'
import type { RunIdentity } from '../core/host.js'

export interface CiSystem {
  name: string
  run: RunIdentity
  /**
   * How the system is told to hide a secret: a line on stdout that the system reads and never
   * shows, or a command; undefined when it has no such way.
   */
  masking?: { describe: string; hide(secret: string, stdout: (line: string) => void): boolean }
}

type Env = NodeJS.ProcessEnv

interface Detector {
  name: string
  detect(env: Env): boolean
  run(env: Env): RunIdentity
  masking?(env: Env): CiSystem['masking']
}

const DETECTORS: Detector[] = [
  {
    name: 'GitHub Actions',
    detect: env => env.GITHUB_ACTIONS === 'true',
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
    detect: env => env.GITLAB_CI === 'true',
    run: env => ({
      repository: env.CI_PROJECT_PATH,
      runId: env.CI_PIPELINE_ID,
      runAttempt: env.CI_JOB_ID
    })
  },
  {
    name: 'Azure Pipelines',
    detect: env => env.TF_BUILD?.toLowerCase() === 'true',
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
    detect: env => env.BUILDKITE === 'true',
    run: env => ({
      repository: env.BUILDKITE_PIPELINE_SLUG,
      runId: env.BUILDKITE_BUILD_NUMBER,
      runAttempt: env.BUILDKITE_RETRY_COUNT
    }),
    masking: env => ({
      describe: 'buildkite-agent redactor add',
      // The secret goes through stdin: an argument would show in the process list. The agent
      // is found on the PATH of the environment the command was given, as everything else is.
      hide: secret =>
        spawnSync('buildkite-agent', ['redactor', 'add'], {
          env,
          input: secret,
          stdio: ['pipe', 'ignore', 'ignore'],
          timeout: 10_000
        }).status === 0
    })
  },
  {
    name: 'Jenkins',
    detect: env => Boolean(env.JENKINS_URL || env.JENKINS_HOME),
    run: env => ({ repository: env.JOB_NAME, runId: env.BUILD_NUMBER })
  },
  {
    name: 'CircleCI',
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
    detect: env => Boolean(env.BITBUCKET_BUILD_NUMBER),
    run: env => ({ repository: env.BITBUCKET_REPO_FULL_NAME, runId: env.BITBUCKET_BUILD_NUMBER })
  }
]

export function detectCiSystem(env: Env, now: () => number = Date.now): CiSystem {
  const found = DETECTORS.find(detector => detector.detect(env))
  if (found === undefined) return { name: 'an unknown CI system', run: fallbackRun(now) }
  const run = found.run(env)
  return {
    name: found.name,
    // Without its own variables (a local try-out), the host and the time still tell runs apart.
    run: run.repository || run.runId ? run : fallbackRun(now),
    ...(found.masking && { masking: found.masking(env) })
  }
}

function fallbackRun(now: () => number): RunIdentity {
  return { repository: hostname(), runId: String(Math.floor(now() / 1000)) }
}
