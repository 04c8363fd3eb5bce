export { HELPER_NAMES, TEMPLATE_HELPERS } from "./helpers.ts";
export {
  checkTemplateContent,
  MAX_RENDERED_SUBJECT_LENGTH,
  type RenderedParts,
  renderContent,
} from "./render.ts";
export { renderTemplateForSend, type TemplateRef } from "./render-for-send.ts";
export {
  createTemplate,
  deleteTemplate,
  getTemplate,
  getTemplateByName,
  getTemplateVersion,
  listTemplates,
  type TemplateTarget,
  updateTemplate,
} from "./store.ts";
export * from "./types.ts";
export { checkVariablesSchema, validateVariables } from "./variables.ts";
