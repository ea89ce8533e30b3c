/**
 * The GitHub workflow snippets of a Markdown page, joined as a user would paste them: a whole
 * workflow stands alone (with `on: push` added when it has no trigger), a `steps:` block starts a
 * job, and a bare list of steps goes on at the end of the job before it on the same page, so that
 * `steps.tunnel.outputs.url` in a later block finds the step that an earlier block gave that id.
 * Blocks for other CI systems (GitLab, CircleCI, Azure, Bitbucket, Buildkite) are left out: their
 * jobs have no `runs-on` and their steps no `uses:` or `run:`.
 */
import { parse } from 'yaml'

export interface PastedWorkflow {
  /** The workflow text handed to actionlint. */
  text: string
  /** For each line of `text`, the page line it came from (0 for a line added around it). */
  origin: number[]
}

interface Block {
  line: number // the page line of the block's first line
  lines: string[]
}

const FENCE_OPEN = /^(\s*)```ya?ml\b/
const FENCE_CLOSE = /^\s*```\s*$/

/** Fenced yaml blocks, with the indentation of their fence removed. */
export function yamlBlocks(markdown: string): Block[] {
  const blocks: Block[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_OPEN.exec(lines[i])
    if (!open) continue
    const indent = open[1].length
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length && !FENCE_CLOSE.test(lines[j]); j++) body.push(lines[j].slice(indent))
    blocks.push({ line: i + 2, lines: body })
    i = j
  }
  return blocks
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const isStepList = (v: unknown): boolean =>
  Array.isArray(v) && v.length > 0 && v.every(s => isMap(s) && ('uses' in s || 'run' in s))

type Kind = 'workflow' | 'steps' | 'more-steps' | 'other'

function kindOf(text: string): Kind {
  let doc: unknown
  try {
    doc = parse(text)
  } catch {
    // Not YAML on its own (a fragment, a template of another tool): nothing to paste.
    return 'other'
  }
  if (isStepList(doc)) return 'more-steps'
  if (!isMap(doc)) return 'other'
  const jobs = doc.jobs
  if (isMap(jobs) && Object.values(jobs).every(j => isMap(j) && ('runs-on' in j || 'uses' in j))) {
    return 'workflow'
  }
  if (Object.keys(doc).length === 1 && isStepList(doc.steps)) return 'steps'
  return 'other'
}

const JOB_HEAD = ['on: push', 'jobs:', '  example:', '    runs-on: ubuntu-latest', '    steps:']

/** The lines of a step list re-indented to sit under a job's `steps:` (six spaces). */
function asJobSteps(block: Block, from: number): { lines: string[]; origin: number[] } {
  const body = block.lines.slice(from)
  const first = body.find(l => /^\s*- /.test(l)) ?? ''
  const shift = 6 - (first.length - first.trimStart().length)
  const pad = (l: string) =>
    l.trim() === '' ? '' : shift >= 0 ? ' '.repeat(shift) + l : l.slice(-shift)
  return { lines: body.map(pad), origin: body.map((_, k) => block.line + from + k) }
}

/** The page's workflow snippets, each joined into a workflow a user could have pasted. */
export function pastedWorkflows(markdown: string): PastedWorkflow[] {
  const out: PastedWorkflow[] = []
  let job: PastedWorkflow | undefined
  for (const block of yamlBlocks(markdown)) {
    const kind = kindOf(block.lines.join('\n'))
    if (kind === 'workflow') {
      const lines = [...block.lines]
      const origin = lines.map((_, k) => block.line + k)
      if (!/^on:/m.test(lines.join('\n'))) {
        lines.unshift('on: push')
        origin.unshift(0)
      }
      out.push({ text: lines.join('\n'), origin })
      job = undefined
    } else if (kind === 'steps' || (kind === 'more-steps' && job === undefined)) {
      const from = kind === 'steps' ? block.lines.findIndex(l => /^steps:/.test(l)) + 1 : 0
      const steps = asJobSteps(block, from)
      job = { text: '', origin: [...JOB_HEAD.map(() => 0), ...steps.origin] }
      job.text = [...JOB_HEAD, ...steps.lines].join('\n')
      out.push(job)
    } else if (kind === 'more-steps' && job !== undefined) {
      const steps = asJobSteps(block, 0)
      job.text = `${job.text}\n${steps.lines.join('\n')}`
      job.origin.push(...steps.origin)
    }
  }
  return out
}
