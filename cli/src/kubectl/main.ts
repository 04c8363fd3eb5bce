/**
 * `kubectl mailroom`, the kubectl plugin (bin/kubectl-mailroom): what the cluster's Mailroom resources say, read
 * through the same client the operator uses, with the caller's kubeconfig (KUBECONFIG, ~/.kube/config, or in a
 * pod its ServiceAccount). Read-only: it never changes a resource.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { createKube } from "@mailroom/operator";
import { Command } from "commander";
import { printRecords } from "./records.ts";
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
      "every ApiKey, SendingDomain, Template and WebhookEndpoint with Ready, its kstatus state " +
        "(Current, Reconciling, Stalled) and the reason and message",
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

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`kubectl-mailroom: ${(error as Error).message}\n`);
  process.exit(1);
}
