/**
 * Shows a step's output as the runner's log view does: values registered with add-mask (or
 * known up front, like workflow secrets) become `***` from then on, annotations read
 * `Error: …`, debug lines appear only with RUNNER_DEBUG=1, and the other commands are hidden.
 */
import { Masker } from './masker.js'
import type { WorkflowCommand } from './workflow-commands.js'

export interface LogLine {
  stream: 'stdout' | 'stderr'
  text: string
  command?: WorkflowCommand
}

export interface RenderableStep {
  lines: LogLine[]
  debug: boolean
  /** Values the runner masked before the step started (workflow secrets). */
  presetMasks?: string[]
}

const ANNOTATIONS: Record<string, string> = {
  error: 'Error',
  warning: 'Warning',
  notice: 'Notice'
}

export function renderLog(step: RenderableStep): string {
  const masker = new Masker()
  for (const value of step.presetMasks ?? []) masker.add(value)
  const out: string[] = []
  let indent = ''
  for (const { text, command } of step.lines) {
    if (!command) {
      out.push(indent + masker.mask(text))
      continue
    }
    const message = masker.mask(command.message)
    if (command.name === 'add-mask') masker.add(command.message)
    else if (command.name in ANNOTATIONS)
      out.push(`${indent}${ANNOTATIONS[command.name]}: ${message}`)
    else if (command.name === 'debug' && step.debug) out.push(`${indent}##[debug]${message}`)
    else if (command.name === 'group') {
      out.push(`▸ ${message}`)
      indent = '  '
    } else if (command.name === 'endgroup') indent = ''
  }
  return out.join('\n')
}
