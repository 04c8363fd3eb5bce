#!/usr/bin/env bash
# Builds the control plane the Kubernetes tests run against (etcd, kube-apiserver, kube-controller-manager) from
# their Go modules at the versions go.mod pins, into a cache outside the repo keyed by version. A machine pays the
# build once; later runs find the binaries and return at once. Prints the directory holding them on its last line.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kube_version="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' "$here/go.mod")"
etcd_version="$(awk '$1 == "go.etcd.io/etcd/server/v3" && $2 ~ /^v/ {print $2; exit}' "$here/go.mod")"
# The key also carries a digest of go.mod/go.sum, so a changed replace or dependency rebuilds.
digest="$(cat "$here/go.mod" "$here/go.sum" "$here"/*/main.go | sha256sum | cut -c1-12)"
out="${XDG_CACHE_HOME:-$HOME/.cache}/mailroom/kube/${kube_version}-etcd-${etcd_version}-${digest}"
binaries=(etcd kube-apiserver kube-controller-manager)

have_all() { for b in "${binaries[@]}"; do [ -x "$out/$b" ] || return 1; done; }
if have_all; then
  echo "› kube: control plane ${kube_version} (etcd ${etcd_version}) cached in $out" >&2
  echo "$out"
  exit 0
fi
command -v go >/dev/null || { echo "kube: Go is not installed (the control plane is built from its Go modules)" >&2; exit 1; }

minor="${kube_version#v1.}"; minor="${minor%%.*}"
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=${kube_version} \
-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} \
-X k8s.io/component-base/version.gitTreeState=clean \
-X k8s.io/client-go/pkg/version.gitVersion=${kube_version}"
mkdir -p "$out.tmp"
started=$SECONDS
for b in "${binaries[@]}"; do
  [ -x "$out.tmp/$b" ] && continue
  echo "› kube: building $b (${kube_version}, etcd ${etcd_version}; the first build on a machine takes long) …" >&2
  t=$SECONDS
  (cd "$here" && GOTOOLCHAIN=local GOFLAGS="-trimpath -mod=readonly" CGO_ENABLED=0 \
    nice -n 10 go build -ldflags "$ldflags" -o "$out.tmp/$b" "./$b")
  echo "› kube: $b built in $((SECONDS - t)) s" >&2
done
rm -rf "$out" && mv "$out.tmp" "$out"
echo "› kube: control plane built in $((SECONDS - started)) s into $out" >&2
echo "$out"
