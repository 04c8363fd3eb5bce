export {
  type Config,
  ConfigError,
  loadConfig,
} from "./config.ts";
export { withDotenv } from "./dotenv.ts";
export { environmentHelp } from "./variables.ts";
