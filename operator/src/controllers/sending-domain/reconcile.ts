/**
 * SendingDomain reconcile, in order: `domain` (domain-step.ts, owns Synced: the claim on the name, the
 * domain and its DKIM keys), `dns-endpoint` (dns-step.ts, owns DNSPublished: the external-dns DNSEndpoint
 * when spec.publishDNS is set), `dkim-rotation` (dkim-step.ts, owns DKIMRotation: the rotation settings in,
 * status.dkim and an Event per step out), `compliance` (checks-step.ts, owns Compliant: the domain's
 * compliance checks), then `ready` (ready-step.ts, owns Ready: verified or not).
 */
import type { SendingDomain } from "../../crds/index.ts";
import type { StatusFields } from "../kind-controller.ts";
import { defineReconcile } from "../steps.ts";
import { checksStep } from "./checks-step.ts";
import { dkimStep } from "./dkim-step.ts";
import { dnsStep } from "./dns-step.ts";
import { domainStep, type SendingDomainState } from "./domain-step.ts";
import { sendingDomainReadyStep } from "./ready-step.ts";

export const reconcileSendingDomain = defineReconcile<
  SendingDomain,
  SendingDomainState,
  StatusFields<"SendingDomain">
>({
  initialState: () => ({}),
  synced: domainStep,
  steps: [dnsStep, dkimStep, checksStep],
  ready: sendingDomainReadyStep,
});
