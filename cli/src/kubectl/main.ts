/**
 * `kubectl mailroom`, the kubectl plugin (bin/kubectl-mailroom): what the cluster's Mailroom resources say, read
 * through the same client the operator uses, with the caller's kubeconfig (KUBECONFIG, ~/.kube/config, or in a
 * pod its ServiceAccount). Read-only: it never changes a resource.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { createKube } from "@mailroom/operator";
import { Command } from "commander";
import { type ApiOptions, apiTarget } from "./mailroom-api.ts";
import { printRecords } from "./records.ts";
import { testSend, trace } from "./send-trace.ts";
import { printStatus } from "./status.ts";

export interface KubeOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  allNamespaces?: boolean;
}

/** The client and the namespace to read: -A for all (undefined), else -n, else the context's, else default. */
export function connect(options: KubeOptions) {
  const kc = new KubeConfig();
  if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
  else kc.loadFromDefault();
  if (options.context) kc.setCurrentContext(options.context);
  const contextNamespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
  const namespace = options.allNamespaces ? undefined : (options.namespace ?? contextNamespace ?? "default");
  return { kube: createKube(kc), namespace };
}

function withKubeOptions(command: Command): Command {
  return command
    .option("-n, --namespace <namespace>", "the namespace (account) to read; default: the context's")
    .option("-A, --all-namespaces", "read every namespace")
    .option("--kubeconfig <file>", "kubeconfig file (default: KUBECONFIG, then ~/.kube/config)")
    .option("--context <name>", "kubeconfig context to use");
}

const program = new Command("kubectl mailroom")
  .description("Mailroom's custom resources as the operator reports them (read-only).")
  .showHelpAfterError("(run `kubectl mailroom --help` for usage)");

withKubeOptions(
  program
    .command("status")
    .description(
      "every ApiKey, SendingDomain, Template and WebhookEndpoint (with -A, ClusterSendingDomains too) with " +
        "Ready, its kstatus state (Current, Reconciling, Stalled) and the reason and message",
    ),
).action(async (options: KubeOptions) => {
  process.exitCode = await printStatus(connect(options), process.stdout);
});

withKubeOptions(
  program
    .command("records <domain>")
    .description("the DNS records to publish for a SendingDomain's domain, each with its verification"),
).action(async (domain: string, options: KubeOptions) => {
  process.exitCode = await printRecords(connect(options), domain, process.stdout);
});

function withApiOptions(command: Command): Command {
  return withKubeOptions(command)
    .requiredOption(
      "--url <url>",
      "the Mailroom API, e.g. https://localhost:8443 after `kubectl port-forward svc/<release>-mailroom-api 8443:443`",
    )
    .requiredOption(
      "--key-secret <name>",
      "the Secret of an ApiKey (key apiKey) in the namespace, e.g. first-key-api-key",
    )
    .option(
      "--ca-file <file>",
      "CA of the API's certificate (the chart's <fullname>-ca ConfigMap, or your Secret's ca.crt)",
    )
    .option(
      "--tls-server-name <name>",
      "name to check the certificate against, e.g. <release>-mailroom-api.<namespace>.svc",
    );
}

type ApiCommandOptions = KubeOptions & ApiOptions;

async function targetOf(options: ApiCommandOptions) {
  const { kube, namespace } = connect({ ...options, allNamespaces: false });
  return apiTarget(kube, namespace ?? "default", options);
}

withApiOptions(
  program
    .command("test-send")
    .description("send one test email through the API with an ApiKey's key; prints its messageId")
    .requiredOption("--from <address>", "sender, on a verified SendingDomain of the namespace")
    .requiredOption("--to <address>", "recipient")
    .option("--subject <text>", "subject", "Mailroom test (kubectl mailroom)"),
).action(async (options: ApiCommandOptions & { from: string; to: string; subject: string }) => {
  process.exitCode = await testSend(await targetOf(options), options, process.stdout);
});

withApiOptions(
  program
    .command("trace <messageId>")
    .description("one email's state and timeline: accepted, attempts, delivery"),
).action(async (messageId: string, options: ApiCommandOptions) => {
  process.exitCode = await trace(await targetOf(options), messageId, process.stdout);
});

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`kubectl-mailroom: ${(error as Error).message}\n`);
  process.exit(1);
}
