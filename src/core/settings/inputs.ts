/**
 * What the steps import from settings/, in one place while the hosts move (issue 17): the types,
 * and main's and post's readers.
 */
export type { CommonSettings, HttpSettings, KindName, MainSettings, PostSettings } from './types.js'
export { parseFailOnRevokeError } from './common.js'
export { readMainSettings } from './read-main.js'
export { readPostKind, readPostSettings } from './read-post.js'
