/**
 * action.yml against the options' table (src/core/options/): the same inputs and outputs, with
 * the table's defaults and descriptions. Used by `npm run docs -- --check` and action.yml's test.
 */
import { optionsOf } from '../src/core/options/option-facts.js'
import { OUTPUTS } from '../src/core/options/output-facts.js'

type Entry = { description?: unknown; default?: unknown; required?: unknown }
/** action.yml as parsed, with nothing assumed of its values. */
export type ActionYmlShape = { inputs?: Record<string, Entry>; outputs?: Record<string, Entry> }

/** One line per difference; empty when action.yml says what the table says. */
export function actionYmlMismatches(action: ActionYmlShape): string[] {
  const problems: string[] = []
  const inputs = action.inputs ?? {}
  const outputs = action.outputs ?? {}
  const tableInputs = optionsOf('action')
  const inputNames = new Set(tableInputs.map(option => option.name))
  for (const name of Object.keys(inputs)) {
    if (!inputNames.has(name)) problems.push(`input ${name} is not in the options' table`)
  }
  for (const option of tableInputs) {
    const input = inputs[option.name]
    if (input === undefined) {
      problems.push(`input ${option.name} is missing from action.yml`)
      continue
    }
    if ((input.default ?? '') !== option.default) {
      problems.push(
        `input ${option.name}: default ${String(input.default)} is not ${option.default}`
      )
    }
    if (input.description !== option.description) {
      problems.push(`input ${option.name}: its description differs from the table's`)
    }
    if (input.required === true) problems.push(`input ${option.name} is required`)
  }
  const outputNames = new Set(OUTPUTS.map(output => output.name))
  for (const name of Object.keys(outputs)) {
    if (!outputNames.has(name)) problems.push(`output ${name} is not in the outputs' table`)
  }
  for (const output of OUTPUTS) {
    const entry = outputs[output.name]
    if (entry === undefined) problems.push(`output ${output.name} is missing from action.yml`)
    else if (entry.description !== output.description) {
      problems.push(`output ${output.name}: its description differs from the table's`)
    }
  }
  return problems
}
