/** Small fakes for a kind's main and post sides: what it logs, masks, saves and publishes. */
import type { ObtainContext, Obtained, RevokeContext } from '../../src/core/kinds/kind.js'
import type { CredentialService } from '../../src/core/service/client.js'
import type { PostSettings } from '../../src/core/settings/types.js'

export interface Recorded {
  lines: string[]
  masked: string[]
  /** Every save, in order; null for a clear. */
  saves: (Record<string, unknown> | null)[]
  published: Obtained[]
}

/** A service whose methods are the ones given; any other call fails the test. */
export function fakeService(methods: Partial<Record<keyof CredentialService, unknown>>) {
  return methods as unknown as CredentialService
}

export function obtainContext(
  service: CredentialService,
  overrides: Partial<ObtainContext> = {}
): { context: ObtainContext; recorded: Recorded } {
  const recorded: Recorded = { lines: [], masked: [], saves: [], published: [] }
  const context: ObtainContext = {
    service: () => service,
    log: {
      info: line => recorded.lines.push(line),
      notice: line => recorded.lines.push(`notice: ${line}`),
      warning: line => recorded.lines.push(`warning: ${line}`)
    },
    mask: secrets => recorded.masked.push(...secrets),
    save: saved => recorded.saves.push({ ...saved }),
    clearSaved: () => recorded.saves.push(null),
    publish: async obtained => {
      recorded.published.push(obtained)
    },
    explain: error => `explained: ${(error as Error).message}`,
    tempRoot: '/nonexistent',
    tempRootName: 'RUNNER_TEMP',
    run: {},
    ...overrides
  }
  return { context, recorded }
}

export function revokeContext(
  service: CredentialService,
  settings: Partial<PostSettings> = {}
): { context: RevokeContext; lines: string[] } {
  const lines: string[] = []
  const context: RevokeContext = {
    settings: {
      kind: 'cicd',
      apiKey: `sk_${'ab'.repeat(32)}`,
      baseUrl: 'https://svc.example.test/functions/v1',
      revoke: true,
      failOnRevokeError: false,
      http: { maxAttempts: 1, timeoutSeconds: 5 },
      optionLabel: name => `--${name}`,
      ...settings
    },
    service: () => service,
    log: {
      info: line => lines.push(line),
      notice: line => lines.push(`notice: ${line}`),
      warning: line => lines.push(`warning: ${line}`)
    },
    tempRoot: '/nonexistent',
    tempRootName: 'RUNNER_TEMP'
  }
  return { context, lines }
}
