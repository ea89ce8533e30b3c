/**
 * The credential kinds' names, the values of the `credential` option that pick them, in the order
 * messages list them. A leaf: options are read and settings typed with it before any kind module
 * loads; the registry (kinds/registry.ts) must hold a kind for each name, and only these.
 */
export const KIND_NAMES = ['cicd', 'free', 'ssh-key', 'existing'] as const

export type KindName = (typeof KIND_NAMES)[number]
