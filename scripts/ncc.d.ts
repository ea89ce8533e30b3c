/** The part of @vercel/ncc's API that scripts/bundle.ts uses (the package ships no types). */
declare module '@vercel/ncc' {
  interface NccOptions {
    /** ES module output when true, CommonJS when false; by default from package.json "type". */
    esm?: boolean
    /** File name, among the assets, for the bundled packages' licenses. */
    license?: string
    /** Requests left as they are in the output, for modules that must not be bundled. */
    externals?: string[]
    /**
     * Called for each file a bundled module reaches by a path: false keeps the module's own
     * expression and copies nothing, a string replaces the expression, undefined lets ncc copy
     * the file into the assets.
     */
    customEmit?: (
      path: string,
      how: { id: string; isRequire: boolean }
    ) => false | string | undefined
    cache?: boolean
    quiet?: boolean
  }
  interface NccResult {
    code: string
    assets: Record<string, { source: string | Buffer }>
  }
  export default function ncc(entry: string, options?: NccOptions): Promise<NccResult>
}
