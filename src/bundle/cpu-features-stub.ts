/**
 * Stands in for `cpu-features` in the tunnel keeper bundle (mapped in src/tsconfig.json).
 * ssh2 loads it, inside a try, only to put ChaCha20 first on CPUs without AES instructions.
 * It is a native addon that may or may not have been built on the machine that bundles, so
 * bundling it would make dist/ differ between machines and tie it to one OS and architecture.
 * Throwing here is what ssh2 sees when the addon is missing: it keeps its default order, AES-GCM
 * first, which runs in Node's own OpenSSL (ssh2's native sshcrypto addon is left out as well;
 * see the bundle script in package.json).
 */
throw new Error('cpu-features is not bundled with this action')
