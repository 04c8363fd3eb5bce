import { type Config, ConfigError, loadConfig } from "@mailroom/core/config";

/** The program's config from the environment; a bad value stops the program naming the variable. */
export function loadProgramConfig(programDefaults: Record<string, string> = {}): Config {
  try {
    return loadConfig(process.env, programDefaults);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`mailroom: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}
