export {
  CONFIG_DEFAULTS,
  CONFIG_VARIABLES,
  type Config,
  ConfigError,
  type EnvInput,
  loadConfig,
} from "./config.ts";
export { withDotenv } from "./dotenv.ts";
export { environmentHelp, type ProgramName, VARIABLES } from "./variables.ts";
