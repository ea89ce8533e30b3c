// Loaded before each test file of a mutation run only. A mutant needs only to fail a property
// test, not a smallest counterexample: fast-check's shrinking of the thousands of runs a mutant
// fails took longer than the mutant's time limit, so such mutants were slow timeouts.
import fc from 'fast-check'

fc.configureGlobal({ endOnFailure: true })
