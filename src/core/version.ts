/** Sent in the User-Agent header; a test keeps it equal to package.json's version. */
export const ACTION_NAME = 'provision-tunnel-credentials'
export const ACTION_VERSION = '1.0.0'
