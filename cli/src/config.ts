import { type Config, ConfigError, loadConfig, withDotenv } from "@mailroom/core/config";

/**
 * The program's config from the environment and a `.env` in the working directory (the environment wins);
 * a bad value stops the program naming the variable.
 */
export function loadProgramConfig(programDefaults: Record<string, string> = {}): Config {
  const { env, file } = withDotenv(process.env, process.cwd());
  try {
    return loadConfig(env, programDefaults);
  } catch (error) {
    if (error instanceof ConfigError) {
      const source = file ? `\n(values come from the environment and from ${file})` : "";
      process.stderr.write(`mailroom: ${error.message}${source}\n`);
      process.exit(2);
    }
    throw error;
  }
}
