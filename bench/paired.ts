/**
 * Paired comparisons: how every verdict of the benchmark is judged. Ours and the reference are
 * timed in pairs within one run, in ABBA order (ours first in one pair, second in the next), so a
 * machine that slows down for a while (another job's tests) slows both sides of the pairs it
 * touches alike. The verdict is the median of the pairs' ratios, not the ratio of two medians,
 * and the interquartile range and the min-max of those ratios are printed beside it: a verdict
 * whose spread straddles the limit says the run was too noisy to judge. Pure functions only.
 */

export interface RatioSpread {
  /** Pairs that both sides completed. */
  pairs: number
  median: number
  /** First and third quartiles of the ratios (linear interpolation between ranks). */
  q1: number
  q3: number
  min: number
  max: number
}

/** Whether ours goes first in pair `index`: ABBA, so each side leads as often as the other. */
export const oursFirst = (index: number): boolean => index % 2 === 0

/** The list in its order for an even pair, reversed for an odd one (A B C, then C B A). */
export const abbaOrder = <T>(list: readonly T[], index: number): T[] =>
  oursFirst(index) ? [...list] : [...list].reverse()

/**
 * The quantile `share` (0 to 1) of `values`, interpolated between the two nearest ranks (as R's
 * and NumPy's default); NaN without values.
 */
export function quantile(values: readonly number[], share: number): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const position = (sorted.length - 1) * Math.min(1, Math.max(0, share))
  const below = Math.floor(position)
  const above = Math.min(sorted.length - 1, below + 1)
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below)
}

/**
 * ours[i] / reference[i] for every i where both sides have a finite figure and the reference's
 * is above zero: a pair one side failed is dropped whole, never matched with another pair.
 */
export function pairedRatios(
  ours: readonly (number | undefined)[],
  reference: readonly (number | undefined)[]
): number[] {
  const ratios: number[] = []
  for (let i = 0; i < Math.min(ours.length, reference.length); i++) {
    const a = ours[i]
    const b = reference[i]
    if (a === undefined || b === undefined) continue
    if (!Number.isFinite(a) || !Number.isFinite(b) || b <= 0) continue
    ratios.push(a / b)
  }
  return ratios
}

/** The median and spread of some ratios; every figure NaN when there are none. */
export function spreadOf(ratios: readonly number[]): RatioSpread {
  return {
    pairs: ratios.length,
    median: quantile(ratios, 0.5),
    q1: quantile(ratios, 0.25),
    q3: quantile(ratios, 0.75),
    min: ratios.length === 0 ? NaN : Math.min(...ratios),
    max: ratios.length === 0 ? NaN : Math.max(...ratios)
  }
}

/** The paired verdict of two aligned series (index i of each was timed in the same pair). */
export const comparePaired = (
  ours: readonly (number | undefined)[],
  reference: readonly (number | undefined)[]
): RatioSpread => spreadOf(pairedRatios(ours, reference))

/** The spread with every ratio to `digits` decimals, for results.json. */
export function roundSpread(spread: RatioSpread, digits = 3): RatioSpread {
  const to = (value: number) => Number(value.toFixed(digits))
  return {
    pairs: spread.pairs,
    median: to(spread.median),
    q1: to(spread.q1),
    q3: to(spread.q3),
    min: to(spread.min),
    max: to(spread.max)
  }
}

/** Medians of consecutive batches of `size` values (a last, shorter batch is dropped). */
export function batchMedians(values: readonly number[], size: number): number[] {
  const medians: number[] = []
  for (let start = 0; start + size <= values.length; start += size) {
    medians.push(quantile(values.slice(start, start + size), 0.5))
  }
  return medians
}

const x = (value: number) => (Number.isFinite(value) ? `${value.toFixed(3)}x` : 'n/a')

/** e.g. "IQR 1.210x-1.402x, min-max 1.100x-1.620x, 30 pairs" */
export const describeSpread = (spread: RatioSpread): string =>
  `IQR ${x(spread.q1)}-${x(spread.q3)}, min-max ${x(spread.min)}-${x(spread.max)}, ${spread.pairs} pairs`
