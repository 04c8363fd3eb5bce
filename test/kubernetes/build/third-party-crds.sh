#!/usr/bin/env bash
# The CRDs of the third-party kinds the chart can render (prometheus-operator's ServiceMonitor, PodMonitor and
# PrometheusRule, cert-manager's Certificate, Gateway API's HTTPRoute and BackendTLSPolicy, external-dns's
# DNSEndpoint), taken from the released Go modules of those projects (each module ships its CRD YAML) through `go mod download`, and copied
# into a cache outside the repo. Prints the directory holding the YAML files on its last line.
set -euo pipefail
crds=(
  "github.com/prometheus-operator/prometheus-operator@v0.85.0 example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"
  "github.com/prometheus-operator/prometheus-operator@v0.85.0 example/prometheus-operator-crd/monitoring.coreos.com_podmonitors.yaml"
  "github.com/prometheus-operator/prometheus-operator@v0.85.0 example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml"
  "github.com/cert-manager/cert-manager@v1.21.2 deploy/crds/cert-manager.io_certificates.yaml"
  "sigs.k8s.io/gateway-api@v1.4.1 config/crd/standard/gateway.networking.k8s.io_httproutes.yaml"
  "sigs.k8s.io/gateway-api@v1.4.1 config/crd/standard/gateway.networking.k8s.io_backendtlspolicies.yaml"
  "sigs.k8s.io/external-dns@v0.20.0 config/crd/standard/dnsendpoints.externaldns.k8s.io.yaml"
)
key="$(printf '%s\n' "${crds[@]}" | sha256sum | cut -c1-12)"
out="${XDG_CACHE_HOME:-$HOME/.cache}/mailroom/kube/third-party-crds-${key}"
if [ -f "$out/.complete" ]; then echo "$out"; exit 0; fi
command -v go >/dev/null || { echo "kube: Go is not installed (the CRDs come from Go modules)" >&2; exit 1; }
mkdir -p "$out"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
for entry in "${crds[@]}"; do
  module="${entry%% *}"; file="${entry#* }"
  echo "› kube: CRD ${file##*/} from ${module}" >&2
  json="$(cd "$work" && GOTOOLCHAIN=local GOFLAGS= go mod download -json "$module")" ||
    { echo "kube: go mod download $module failed: $json" >&2; exit 1; }
  dir="$(sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' <<<"$json")"
  [ -f "$dir/$file" ] || { echo "kube: $module has no $file" >&2; exit 1; }
  cp "$dir/$file" "$out/${file##*/}"
done
touch "$out/.complete"
echo "$out"
