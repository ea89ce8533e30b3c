/**
 * An error whose message is already the complete explanation for the user: what went wrong and
 * what to do. The hosts print these as they are; any other error is an unexpected bug.
 */
export class ExplainedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ExplainedError'
  }
}
