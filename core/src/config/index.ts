export { CONFIG_VARIABLES, type Config, ConfigError, type EnvInput, loadConfig } from "./config.ts";
