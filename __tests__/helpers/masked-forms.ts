/**
 * The forms in which a CI log masks a secret, and a search for any of them in a text. The GitHub
 * runner masks a value as is and in its encodings: base64 of the value and of the value with its
 * first one or two bytes dropped (so that the secret is found inside the base64 of a longer text,
 * whatever its offset), base64url likewise, URL-encoded and JSON-escaped. A text that holds any
 * 8 characters of one of these forms carries part of the secret, masked or not.
 */

export interface MaskedForm {
  encoding: string
  text: string
}

export const WINDOW = 8

/**
 * Base64 of `bytes` as it reads inside the encoding of any longer text that holds them at a
 * 3-byte boundary: the padding goes, and so does a last character that the bytes after would change.
 */
function stableBase64(bytes: Buffer, alphabet: 'base64' | 'base64url'): string {
  const whole = bytes.subarray(0, bytes.length - (bytes.length % 3))
  const tail = bytes.subarray(whole.length)
  // The full characters of a partial group: 1 byte -> 1 char, 2 bytes -> 2 chars.
  const partial =
    tail.length === 0 ? '' : tail.toString(alphabet).replace(/=+$/, '').slice(0, tail.length)
  return whole.toString(alphabet) + partial
}

export function maskedForms(secret: string): MaskedForm[] {
  const bytes = Buffer.from(secret, 'utf8')
  const forms: MaskedForm[] = [
    { encoding: 'as is', text: secret },
    { encoding: 'URL-encoded', text: encodeURIComponent(secret) },
    { encoding: 'JSON-escaped', text: JSON.stringify(secret).slice(1, -1) }
  ]
  for (const alphabet of ['base64', 'base64url'] as const) {
    for (const dropped of [0, 1, 2]) {
      forms.push({
        encoding: `${alphabet}, ${dropped} leading byte${dropped === 1 ? '' : 's'} dropped`,
        text: stableBase64(bytes.subarray(dropped), alphabet)
      })
    }
  }
  return forms
}

export interface Leak {
  secret: string
  encoding: string
  window: string
}

/** The first 8-character piece of any masked form of any named secret that `text` holds. */
export function findLeak(text: string, secrets: Record<string, string>): Leak | undefined {
  for (const [name, value] of Object.entries(secrets)) {
    for (const form of maskedForms(value)) {
      for (let start = 0; start + WINDOW <= form.text.length; start++) {
        const window = form.text.slice(start, start + WINDOW)
        if (text.includes(window)) return { secret: name, encoding: form.encoding, window }
      }
    }
  }
  return undefined
}
