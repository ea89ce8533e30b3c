/**
 * Stands in for `cpu-features` in the tunnel keeper bundle (mapped in src/tsconfig.json).
 * ssh2 loads it, inside a try, only to prefer AES-GCM over ChaCha20 on CPUs with AES
 * instructions. It is a native addon that may or may not have been built on the machine that
 * bundles, so bundling it would make dist/ differ between machines and tie it to one OS and
 * architecture. Throwing here is what ssh2 sees when the addon is missing: it keeps its default
 * cipher order.
 */
throw new Error('cpu-features is not bundled with this action')
