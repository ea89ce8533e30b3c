/**
 * Buildkite's masking: `buildkite-agent redactor add`, run from where the agent says it lives and
 * never from PATH. Under `npx`, PATH starts with the checkout's node_modules/.bin, so the first
 * `buildkite-agent` there may be any dependency's; and the agent is handed only what the command
 * needs, never the API key.
 */
import { spawnSync } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'

type Env = NodeJS.ProcessEnv

// What `redactor add` reads: the job API (socket and token) it talks to, and the agent's own
// settings; HOME, TMPDIR and SYSTEMROOT for the Go runtime. Nothing else, and never an SVC_ variable.
const AGENT_ENVIRONMENT = [
  'BUILDKITE_AGENT_JOB_API_SOCKET',
  'BUILDKITE_AGENT_JOB_API_TOKEN',
  'BUILDKITE_AGENT_ACCESS_TOKEN',
  'BUILDKITE_AGENT_ENDPOINT',
  'BUILDKITE_JOB_ID',
  'BUILDKITE_NO_HTTP2',
  'BUILDKITE_AGENT_DEBUG',
  'BUILDKITE_AGENT_LOG_LEVEL',
  'BUILDKITE_AGENT_NO_COLOR',
  'BUILDKITE_AGENT_EXPERIMENT',
  'HOME',
  'TMPDIR',
  'SYSTEMROOT'
]

/** The agent binary in BUILDKITE_BIN_PATH, which the agent sets to its own folder; or why not. */
export function findBuildkiteAgent(env: Env): { path: string } | { missing: string } {
  const folder = env.BUILDKITE_BIN_PATH
  if (!folder || !isAbsolute(folder)) {
    return { missing: 'BUILDKITE_BIN_PATH, where the agent says it lives, is not an absolute path' }
  }
  const path = join(
    folder,
    process.platform === 'win32' ? 'buildkite-agent.exe' : 'buildkite-agent'
  )
  try {
    if (!statSync(path).isFile()) throw new Error('not a file')
    accessSync(path, constants.X_OK)
  } catch {
    return { missing: 'BUILDKITE_BIN_PATH holds no buildkite-agent program' }
  }
  return { path }
}

/** The environment the agent is given: the variables it reads, and nothing more. */
export function agentEnvironment(env: Env): Record<string, string> {
  return Object.fromEntries(
    AGENT_ENVIRONMENT.flatMap(name => (env[name] === undefined ? [] : [[name, env[name]!]]))
  )
}

/** Hands the secret to the agent through stdin (an argument would show in the process list). */
export function redactWithAgent(agentPath: string, env: Env, secret: string): boolean {
  return (
    spawnSync(agentPath, ['redactor', 'add'], {
      env: agentEnvironment(env),
      input: secret,
      stdio: ['pipe', 'ignore', 'ignore'],
      timeout: 10_000
    }).status === 0
  )
}
