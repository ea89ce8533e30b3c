/**
 * The runner's secret masker: every registered value is replaced by `***` in every later log
 * line. Overlapping or adjacent matches of different secrets merge into one `***`, as the
 * runner's SecretMasker does.
 */
export class Masker {
  readonly values: string[] = []

  /** As `::add-mask::` does: the whole value, and each of its lines on its own. */
  add(value: string): void {
    if (value.trim() === '') return
    for (const v of [value, ...value.split(/\r?\n|\r/)]) {
      if (v.trim() !== '' && !this.values.includes(v)) this.values.push(v)
    }
  }

  mask(text: string): string {
    const ranges: [number, number][] = []
    for (const value of this.values) {
      for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
        ranges.push([at, at + value.length])
      }
    }
    if (ranges.length === 0) return text
    ranges.sort((a, b) => a[0] - b[0])
    let out = ''
    let pos = 0
    let [start, end] = ranges[0]
    for (const [s, e] of ranges.slice(1)) {
      if (s <= end) {
        end = Math.max(end, e)
        continue
      }
      out += text.slice(pos, start) + '***'
      pos = end
      ;[start, end] = [s, e]
    }
    return out + text.slice(pos, start) + '***' + text.slice(end)
  }
}
