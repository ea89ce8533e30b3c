/** The projects the stand-in knows, by slug. `credential-provision` answers 404 for any other. */
import { newClientId, newUuid } from './ids.js'

export interface Project {
  id: string
  slug: string
  name: string
  default_client_id: string
}

export class ProjectRegistry {
  private readonly projects = new Map<string, Project>()

  add(slug: string, name: string = slug): Project {
    const project: Project = { id: newUuid(), slug, name, default_client_id: newClientId() }
    this.projects.set(slug, project)
    return project
  }

  find(slug: string): Project | undefined {
    return this.projects.get(slug)
  }
}
