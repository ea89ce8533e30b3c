/**
 * Which template forms the public URLs (pure): the user's `url-template` always; when it is empty,
 * the form the tunnel server uses, as the credential's answer tells it. The product's servers
 * serve `{name}-{user}.{tunnel_fqdn}` when they are shared and `{name}.{tunnel_fqdn}` when
 * dedicated, and the answer says which with `append_user_to_subdomain`; the spec's answer says
 * neither, and gets today's form, `https://{name}-{user}.{host}`, byte for byte.
 */
import type { TunnelLogin } from '../../kinds/kind.js'

/**
 * The template to fill, and the words that say why it is this one. The words end in ")": the
 * summary escapes a value that ends like the start of a log marker ("...false" could begin
 * "section_end:"), which would garble "false".
 */
export interface UrlForm {
  template: string
  /** How it was chosen, for the summary and the log: "https://{name}-{user}.{host}, as ... is empty: the domain ...". */
  rule: string
  /**
   * True when fields of the answer, not today's default, chose the form: the log says so as a
   * notice, since a URL unlike the one of earlier runs is worth seeing.
   */
  fromAnswer: boolean
}

/**
 * The form of this run's URLs. `urlTemplate` is the checked input ('' when empty); the domain is
 * the tunnel host when `tunnelHostGiven` (a self-hosted server, named by the options), else the
 * answer's tunnel_fqdn when it has one, else the tunnel host. The product's own action appends the
 * user unless the answer's append_user_to_subdomain is false, and so does this rule.
 */
export function urlFormFor(
  urlTemplate: string,
  answerUrl: TunnelLogin['answerUrl'],
  tunnelHostGiven: boolean,
  label: (name: string) => string
): UrlForm {
  if (urlTemplate !== '') {
    return {
      template: urlTemplate,
      rule: `${urlTemplate}, from ${label('url-template')}`,
      fromAnswer: false
    }
  }
  const fqdn = answerUrl?.tunnelFqdn
  const append = answerUrl?.appendUserToSubdomain
  const domain = tunnelHostGiven
    ? {
        placeholder: '{host}',
        why: `the domain is the tunnel host, from ${label('tunnel-host')}${fqdn === undefined ? '' : ` (not the answer's tunnel_fqdn, ${fqdn})`}`
      }
    : fqdn !== undefined
      ? { placeholder: '{fqdn}', why: `the domain is the answer's tunnel_fqdn (${fqdn})` }
      : {
          placeholder: '{host}',
          why: 'the domain is the tunnel host (the answer has no tunnel_fqdn)'
        }
  const name =
    append === false
      ? {
          placeholder: '{name}',
          why: "the name is the entry's alone (append_user_to_subdomain: false)"
        }
      : {
          placeholder: '{name}-{user}',
          why: `the name ends with the tunnel user (${append === true ? 'append_user_to_subdomain: true' : 'the answer has no append_user_to_subdomain'})`
        }
  const template = `https://${name.placeholder}.${domain.placeholder}`
  return {
    template,
    rule: `${template}, as ${label('url-template')} is empty: ${domain.why}, and ${name.why}`,
    fromAnswer: fqdn !== undefined || append !== undefined
  }
}
