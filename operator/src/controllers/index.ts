import type { ControllerSet } from "../runtime/operator.ts";
import { accountPolicyController } from "./account-policy/index.ts";
import { apiKeyController } from "./api-key/index.ts";
import { clusterSendingDomainController } from "./cluster-sending-domain/index.ts";
import { sendingDomainController } from "./sending-domain/index.ts";
import { templateController } from "./template/index.ts";
import { webhookEndpointController } from "./webhook-endpoint/index.ts";

/** Every kind's controller, as the operator runs them. */
export const ALL_CONTROLLERS: ControllerSet = {
  AccountPolicy: accountPolicyController,
  ApiKey: apiKeyController,
  ClusterSendingDomain: clusterSendingDomainController,
  SendingDomain: sendingDomainController,
  Template: templateController,
  WebhookEndpoint: webhookEndpointController,
};
