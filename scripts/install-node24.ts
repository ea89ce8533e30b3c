/** Installs the runner's Node (24) if it is missing and prints its path: `npx tsx scripts/install-node24.ts`. */
import { ensureNode24 } from './node24.js'

console.log(ensureNode24())
