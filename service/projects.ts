/**
 * The projects the stand-in knows, by slug, each owned by one account. Slugs are unique across
 * accounts; an account sees only its own projects (`credential-provision` answers 404 for any other).
 */
import { newClientId, newUuid } from './ids.js'

export interface Project {
  id: string
  slug: string
  name: string
  default_client_id: string
}

export class ProjectRegistry {
  // The owner is kept beside the project, not in it, so answers never carry it.
  private readonly projects = new Map<string, { project: Project; owner: string }>()

  add(slug: string, owner: string, name: string = slug): Project {
    const project: Project = { id: newUuid(), slug, name, default_client_id: newClientId() }
    this.projects.set(slug, { project, owner })
    return project
  }

  /** Whoever owns it: for slug uniqueness. */
  isTaken(slug: string): boolean {
    return this.projects.has(slug)
  }

  /** The project if `owner` owns it. */
  findOwned(slug: string, owner: string): Project | undefined {
    const entry = this.projects.get(slug)
    return entry?.owner === owner ? entry.project : undefined
  }

  /** The owner's projects, in the order they were registered. */
  listFor(owner: string): Project[] {
    return [...this.projects.values()]
      .filter(entry => entry.owner === owner)
      .map(entry => entry.project)
  }
}
