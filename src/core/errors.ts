/**
 * An error whose message is written for the workflow author: it says what went wrong and what to
 * do. The entry points print these as they are; anything else is an unexpected bug.
 */
export class ActionError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ActionError'
  }
}
