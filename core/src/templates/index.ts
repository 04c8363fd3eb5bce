export { renderTemplateForSend } from "./render-for-send.ts";
export {
  createTemplate,
  deleteTemplate,
  getTemplate,
  getTemplateByName,
  getTemplateVersion,
  listTemplates,
  updateTemplate,
} from "./store.ts";
export * from "./types.ts";
