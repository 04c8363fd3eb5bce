/** Raised when an environment variable holds a value Mailroom cannot use. */
export class ConfigError extends Error {
  override name = "ConfigError";
}
