/**
 * Runs one hostile case through the main step and then the post step in this process, with the
 * credential service mocked by nock, and returns what the oracle finds wrong (empty when sound).
 */
import nock from 'nock'
import { BASE_URL, fakeClock, runInProcess, type StepOutcome } from '../helpers/in-process-step.js'
import { API_KEY, type ServiceAnswer } from './answers.js'
import { findProblems, type Observed } from './oracle.js'

// nock must patch http before @actions/http-client loads.
const { runMain, runPost } = await import('../helpers/github-steps.js')

const ORIGIN = 'https://credentials.example.test'
const PROVISION = '/functions/v1/credential-provision'
const REVOKE = '/functions/v1/revoke-token'
const PROJECT = 'web-shop'
export const INPUTS = { 'api-key': API_KEY, project: PROJECT, 'base-url': BASE_URL }

function parseRequestBody(body: unknown): unknown {
  if (typeof body !== 'string') return body
  try {
    return JSON.parse(body)
  } catch {
    return body
  }
}

/** Serves the answers in order (the last one repeats), runs main and post, and records it all. */
async function runBothSteps(
  answers: ServiceAnswer[],
  revokeAnswer: ServiceAnswer,
  inputs: Record<string, string>
): Promise<Observed | string> {
  nock.cleanAll()
  const served: ServiceAnswer[] = []
  const revokes: Observed['revokes'] = []
  let step: 'main' | 'post' = 'main'
  nock(ORIGIN)
    .persist()
    .post(PROVISION)
    .reply(() => {
      const answer = answers[Math.min(served.length, answers.length - 1)]
      served.push(answer)
      return [answer.status, answer.body, answer.headers]
    })
  nock(ORIGIN)
    .persist()
    .post(REVOKE)
    .reply((_uri, body) => {
      revokes.push({ step, body: parseRequestBody(body) })
      return [revokeAnswer.status, revokeAnswer.body, revokeAnswer.headers]
    })

  let mainThrew: unknown
  let postThrew: unknown
  let main: StepOutcome
  let post: StepOutcome
  try {
    main = await runInProcess(
      () => runMain(fakeClock()).catch(error => void (mainThrew = error ?? 'undefined')),
      inputs
    )
  } catch (error) {
    // The helper parses the runner's files as the runner would; it throws when they are broken.
    return `main left runner files the runner cannot read: ${String(error)}`
  }
  step = 'post'
  try {
    post = await runInProcess(
      () => runPost(fakeClock()).catch(error => void (postThrew = error ?? 'undefined')),
      inputs,
      { state: main.state }
    )
  } catch (error) {
    return `post left runner files the runner cannot read: ${String(error)}`
  }
  return {
    main,
    mainThrew,
    post,
    postThrew,
    lastAnswer: served.at(-1),
    revokes
  }
}

export async function problemsWith(
  answers: ServiceAnswer[],
  revokeAnswer: ServiceAnswer,
  inputs: Record<string, string> = INPUTS
): Promise<string[]> {
  const observed = await runBothSteps(answers, revokeAnswer, inputs)
  if (typeof observed === 'string') return [observed]
  return findProblems(observed, {
    apiKey: API_KEY,
    project: inputs.project.trim(),
    secrets: [...answers, revokeAnswer].flatMap(answer => answer.secrets),
    revokeAnswerOk: revokeAnswer.status >= 200 && revokeAnswer.status < 300
  })
}
