/** The service's address and a credential-provision answer, shared by the core's main tests. */
import { API_KEY, BASE_URL } from './in-process-step.js'

export const ORIGIN = 'https://credentials.example.test'
export const PATH = '/functions/v1/credential-provision'
export const REVOKE = '/functions/v1/revoke-token'
export const TOKEN = 'tok_3f9a8b7c6d5e4f3a2b1c'
export const CREDENTIAL = {
  token: TOKEN,
  tunnel_user: 'ab12c',
  client_id: 'client-77',
  expires_at: '2026-11-23T11:00:00Z',
  ttl_minutes: 60,
  tunnel_host: 'tunnel.example.test',
  tunnel_port: 2223,
  project_slug: 'web-shop'
}
export const INPUTS = { 'api-key': API_KEY, project: 'web-shop', 'base-url': BASE_URL }
