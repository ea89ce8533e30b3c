/**
 * The set-up core step tests share: the local credential service for the whole file, scratch
 * folders removed after it, and the options of a cicd step against that service.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  startCredentialService,
  type RunningService,
  type ServiceOptions
} from '../../service/server.js'

export interface CoreStepSetUp {
  service(): RunningService
  scratch(): string
  options(extra?: Record<string, string>): Record<string, string>
}

/** `serviceOptions` choose the stand-in's answer shape and naming (e.g. `answerShape: 'product'`). */
export function useLocalService(
  prefix: string,
  serviceOptions: ServiceOptions = {}
): CoreStepSetUp {
  let service: RunningService | undefined
  const temps: string[] = []
  beforeAll(async () => {
    service = await startCredentialService(serviceOptions)
  })
  afterAll(async () => {
    await service?.close()
    for (const dir of temps) rmSync(dir, { recursive: true, force: true })
  })
  const running = () => {
    if (service === undefined) throw new Error('the local service starts in beforeAll')
    return service
  }
  return {
    service: running,
    scratch: () => {
      const dir = mkdtempSync(join(tmpdir(), prefix))
      temps.push(dir)
      return dir
    },
    options: (extra = {}) => ({
      'api-key': running().seed.provisionKey,
      project: running().seed.project,
      'base-url': running().baseUrl,
      'max-attempts': '1',
      ...extra
    })
  }
}
