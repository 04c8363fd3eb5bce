#!/usr/bin/env bash
# Builds the compiled SMTP clients of test/clients once, into a cache outside the repository (nothing built is
# committed): the Go net/smtp program, and the Jakarta Mail program with its jars from Maven Central. Rebuilt
# only when a source changes. Prints the cache directory.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${XDG_CACHE_HOME:-$HOME/.cache}/mailroom/clients"
programs=test/clients/programs
mkdir -p "$cache"

stamp() { sha256sum "$@" | sha256sum | cut -c1-16; }

# A missing toolchain is left to the test, which skips that client (or fails it in CI) and says why.
if command -v go >/dev/null 2>&1; then
  go_stamp=$(stamp "$programs/gosmtp/main.go" "$programs/gosmtp/go.mod")
  if [ ! -x "$cache/gosmtp-$go_stamp" ]; then
    (cd "$programs/gosmtp" && GOFLAGS=-mod=mod nice -n 10 go build -o "$cache/gosmtp-$go_stamp" .) >&2
  fi
  ln -sf "gosmtp-$go_stamp" "$cache/gosmtp"
fi
if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
  echo "$cache"
  exit 0
fi

# Jakarta Mail 2.1 (API) and Eclipse Angus (its implementation), as a Maven project would depend on them.
jars="$cache/jakarta-lib"
for artifact in jakarta.mail:jakarta.mail-api:2.1.3 org.eclipse.angus:angus-mail:2.0.3 \
  jakarta.activation:jakarta.activation-api:2.1.3 org.eclipse.angus:angus-activation:2.0.2; do
  IFS=: read -r _ name version <<<"$artifact"
  [ -f "$jars/$name-$version.jar" ] && continue
  nice -n 10 mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$artifact" -DoutputDirectory="$jars" >&2
done
java_stamp=$(stamp "$programs/jakarta/Send.java")
if [ ! -f "$cache/jakarta-$java_stamp/Send.class" ]; then
  mkdir -p "$cache/jakarta-$java_stamp"
  nice -n 10 javac -cp "$jars/*" -d "$cache/jakarta-$java_stamp" "$programs/jakarta/Send.java" >&2
fi
ln -sfn "jakarta-$java_stamp" "$cache/jakarta"
echo "$cache"
