/**
 * Stands in for `bcrypt-pbkdf` in the tunnel keeper bundle (mapped in src/tsconfig.json). ssh2's
 * key parser loads it at start, with tweetnacl (about 85 KB between them), but calls it only to
 * decrypt a passphrase-protected private key. The keeper logs in with a token, or with the key
 * `credential: ssh-key` writes unencrypted, so it never does; leaving both out saves the tunnel
 * process compiling them on every start, which main waits for.
 */
export function pbkdf(): never {
  throw new Error(
    'bcrypt-pbkdf is not bundled with the tunnel process: a passphrase-protected private key cannot be read.'
  )
}
