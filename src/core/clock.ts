/** Time and chance, injected so retries and expiry are tested without waiting. */
export interface Clock {
  now: () => number
  sleep: (ms: number) => Promise<void>
  random: () => number
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: ms => new Promise(resolve => setTimeout(resolve, ms)),
  random: () => Math.random()
}
