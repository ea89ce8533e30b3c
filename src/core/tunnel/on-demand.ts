/**
 * The tunnel's part of both steps, in the one module that provision.ts and revoke.ts import on
 * demand: the bundle then holds all tunnel code in one chunk (dist/<id>.index.js), which a step
 * without a tunnel never loads. Two imports would make two chunks, each with its own copy of
 * what they share.
 */
export { prepareTunnel } from './main/open.js'
export { stopSavedTunnel } from './post/stop-saved.js'
