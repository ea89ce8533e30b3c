/**
 * The benchmark's verdicts: ours and the reference timed in ABBA pairs, judged by the median of
 * the pairs' ratios, with the spread of those ratios printed beside it (bench/paired.ts).
 */
import {
  abbaOrder,
  batchMedians,
  comparePaired,
  describeSpread,
  pairedRatios,
  quantile,
  roundSpread,
  spreadOf
} from '../../bench/paired.js'
import { alternate } from '../../bench/startup.js'
import { emptySamples, pairedRatios as tunnelRatios } from '../../bench/tunnel-figures.js'

describe('quantile', () => {
  it('interpolates between the two nearest ranks', () => {
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(2.5)
    expect(quantile([1, 2, 3, 4, 5], 0.25)).toBe(2)
    expect(quantile([1, 2, 3, 4], 0.25)).toBe(1.75)
    expect(quantile([10, 20], 0.75)).toBe(17.5)
    expect(quantile([7], 0.9)).toBe(7)
    expect(quantile([3, 1, 2], 0)).toBe(1)
    expect(quantile([3, 1, 2], 1)).toBe(3)
  })

  it('is NaN without values', () => {
    expect(quantile([], 0.5)).toBeNaN()
  })
})

describe('pairedRatios', () => {
  it('divides each of ours by the reference timed in the same pair', () => {
    expect(pairedRatios([110, 300, 60], [100, 200, 50])).toEqual([1.1, 1.5, 1.2])
  })

  it('drops a pair whole when either side failed, never shifting the others', () => {
    // Pair 1 failed on our side, pair 2 on the reference's: pairs 0 and 3 remain, as timed.
    expect(pairedRatios([120, undefined, 90, 130], [100, 100, undefined, 100])).toEqual([1.2, 1.3])
    expect(pairedRatios([1, NaN, 2], [1, 1, 0])).toEqual([1])
  })
})

describe('the verdict of a paired run', () => {
  it('holds when the machine slows down for part of the run, where a ratio of medians does not', () => {
    // Ours is 1.1x the reference in every pair. Another job then doubles every time for the
    // last 6 pairs, and the reference failed twice before the slow spell.
    const fast = Array.from({ length: 6 }, () => [110, 100] as const)
    const slow = Array.from({ length: 6 }, () => [220, 200] as const)
    const ours: (number | undefined)[] = [...fast, ...slow].map(([a]) => a)
    const reference: (number | undefined)[] = [...fast, ...slow].map(([, b]) => b)
    reference[0] = undefined
    reference[1] = undefined
    const spread = comparePaired(ours, reference)
    expect(spread).toEqual({ pairs: 10, median: 1.1, q1: 1.1, q3: 1.1, min: 1.1, max: 1.1 })
    // The same samples judged by their medians alone: ours 165 ms against the reference's 200.
    const medianOf = (values: (number | undefined)[]) =>
      quantile(
        values.filter((v): v is number => v !== undefined),
        0.5
      )
    expect(medianOf(ours) / medianOf(reference)).toBeCloseTo(0.825, 3)
  })

  it('prints the quartiles and extremes of the ratios beside the median', () => {
    const spread = spreadOf([1.0, 1.2, 1.4, 1.6, 2.0])
    expect(spread).toEqual({ pairs: 5, median: 1.4, q1: 1.2, q3: 1.6, min: 1, max: 2 })
    expect(describeSpread(spread)).toBe('IQR 1.200x-1.600x, min-max 1.000x-2.000x, 5 pairs')
    expect(describeSpread(spreadOf([]))).toBe('IQR n/a-n/a, min-max n/a-n/a, 0 pairs')
    expect(roundSpread(spreadOf([1 / 3, 2 / 3]))).toEqual({
      pairs: 2,
      median: 0.5,
      q1: 0.417,
      q3: 0.583,
      min: 0.333,
      max: 0.667
    })
  })
})

describe('ABBA order', () => {
  it('reverses every other pair, so each side leads as often', () => {
    const orders = [0, 1, 2, 3].map(i => abbaOrder(['ours', 'reference', 'third'], i).join(' '))
    expect(orders).toEqual([
      'ours reference third',
      'third reference ours',
      'ours reference third',
      'third reference ours'
    ])
  })

  it('is how the start-up pairs run, warm-ups first, kept apart and not counted', async () => {
    const calls: string[] = []
    let stepTime = 0
    let floorTime = 0
    const pairs = await alternate(
      { runs: 4, warmup: 1 },
      'Node test',
      async () => {
        calls.push('step')
        return (stepTime += 30)
      },
      async () => {
        calls.push('floor')
        return (floorTime += 20)
      }
    )
    expect(calls).toEqual([
      ...['step', 'floor'], // warm-up pair
      ...['floor', 'step'],
      ...['step', 'floor'],
      ...['floor', 'step'],
      ...['step', 'floor']
    ])
    // Counted pairs 2-5: 60/40, 90/60, 120/80, 150/100; the warm-up's 30/20 is left out.
    expect(pairs.warmupMs).toEqual([[30, 20]])
    expect(pairs.stepMs).toEqual([60, 90, 120, 150])
    expect(pairs.floorMs).toEqual([40, 60, 80, 100])
    expect(pairs.ratio).toBe(1.5)
    expect(pairs.spread).toMatchObject({ pairs: 4, min: 1.5, max: 1.5 })
  })
})

describe('batchMedians', () => {
  it('gives the median of each whole batch, dropping a short last one', () => {
    expect(batchMedians([5, 1, 3, 10, 30, 20, 99], 3)).toEqual([3, 20])
  })
})

describe("the tunnel's paired ratios", () => {
  it('pairs time to ready by round, downloads by pair and latency by batch', () => {
    const action = emptySamples()
    const ssh = emptySamples()
    action.ready.push(130, undefined, 150)
    ssh.ready.push(100, 90, 100)
    action.throughput.push(160, 90)
    ssh.throughput.push(200, 100)
    action.latencyBatchMedians.push(1.2, 1.4, 1.8)
    ssh.latencyBatchMedians.push(1, 1, 1)
    const ratios = tunnelRatios(action, ssh)
    expect(ratios.readyVsRecipe).toMatchObject({ pairs: 2, median: 1.4, min: 1.3, max: 1.5 })
    expect(ratios.throughput).toMatchObject({ pairs: 2, median: 0.85, min: 0.8, max: 0.9 })
    expect(ratios.latency).toMatchObject({ pairs: 3, median: 1.4, q1: 1.3, q3: 1.6 })
  })
})
