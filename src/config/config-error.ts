/** A configuration the service refuses to start with; the message names the variable. */
export class ConfigError extends Error {}
