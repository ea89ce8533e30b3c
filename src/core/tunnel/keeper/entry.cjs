/* global require */
// CommonJS entry of the tunnel keeper bundle (dist/tunnel/index.cjs): ncc emits CommonJS only
// for a .cjs entry, and ssh2 fails to load as ESM (its poly1305 loader uses __dirname).
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./main.ts')
