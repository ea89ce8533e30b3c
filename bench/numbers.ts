/** Statistics and formatting shared by the benchmark's sections. */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

export const round = (value: number, digits = 1) => Number(value.toFixed(digits))

export const pass = (ok: boolean) => (ok ? 'PASS' : 'FAIL')
export const ms = (value: number) => `${value.toFixed(1).padStart(7)} ms`
export const kb = (bytes: number) => `${(bytes / 1000).toFixed(1).padStart(7)} KB`

/** One line of "before -> after (change %)", or nothing when there is no before. */
export function change(name: string, before: unknown, after: number, unit: string): string[] {
  if (typeof before !== 'number') return []
  const digits = unit === 'x' ? 3 : 1
  const percent = before === 0 ? 0 : ((after - before) / before) * 100
  const sign = percent > 0 ? '+' : ''
  return [
    `  ${name.padEnd(30)}${before.toFixed(digits).padStart(10)} -> ${after.toFixed(digits).padStart(10)} ${unit.padEnd(2)} (${sign}${percent.toFixed(1)}%)`
  ]
}
