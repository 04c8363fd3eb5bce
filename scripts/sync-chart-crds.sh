#!/usr/bin/env bash
# Copies the generated CRDs (crds/, from operator/src/crds/generate.ts) into the Helm chart, which templates
# them from charts/mailroom/files/crds/. test/helm fails while the two differ.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -f charts/mailroom/files/crds/*.yaml
cp crds/*.yaml charts/mailroom/files/crds/
echo "copied $(ls crds/*.yaml | wc -l) CRDs into charts/mailroom/files/crds/"
