/** A configuration Vexil cannot start with; the message is one line naming the key. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
