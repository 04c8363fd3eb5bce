#!/usr/bin/env bash
# Installs the Debian packages the test suite, the image build and the benchmarks drive as real peers
# (swaks, Python's smtplib + dkimpy, Postfix + OpenDKIM, Chromium, promtool, buildah + debootstrap, Patroni +
# etcd + HAProxy, and the SMTP clients of test/clients: Django, PHPMailer, Ruby's mail, Go, Jakarta Mail's JDK
# and Maven, curl, msmtp; lua5.1 for the chart's Argo CD health script), and the release test's registry and skopeo.
# Installs only what is missing, only as root on a Debian-like system; otherwise prints what is missing
# and exits 0, so the tests that need a package say they skipped and why.
set -euo pipefail

# package  command-it-provides, perl:Module for a Perl module, or a /path/to/a/file it installs
PACKAGES=(
  "postgresql pg_ctlcluster"
  "swaks swaks"
  "libnet-ssleay-perl perl:Net::SSLeay"
  "libio-socket-ssl-perl perl:IO::Socket::SSL"
  "python3 python3"
  "python3-dkim dkimverify"
  "postfix postfix"
  "opendkim opendkim"
  "opendkim-tools opendkim-genkey"
  "chromium chromium"
  "prometheus promtool"
  "buildah buildah"
  "debootstrap debootstrap"
  # The fault suite's replicated Postgres (issue 28): Patroni (pulls python3-etcd and python3-psycopg2) over
  # etcd 3.4, HAProxy as the read-write and read-only endpoints; PostgreSQL 15 comes with `postgresql` above.
  "patroni patroni"
  "etcd-server etcd"
  "haproxy haproxy"
  "python3-django /usr/lib/python3/dist-packages/django/__init__.py"
  "php-cli php"
  "libphp-phpmailer /usr/share/php/libphp-phpmailer/autoload.php"
  "ruby-mail /usr/lib/ruby/vendor_ruby/mail.rb"
  "golang-go go"
  "openjdk-17-jdk-headless javac"
  "maven mvn"
  "curl curl"
  # DANE tests (issue 32): a DNSSEC-signed zone (ldns-keygen, ldns-signzone) served by nsd and validated by
  # unbound, test/support/dnssec-dns.ts. Their services are not started; the tests run their own on loopback.
  "ldnsutils ldns-signzone"
  "nsd /usr/sbin/nsd"
  "unbound /usr/sbin/unbound"
  "msmtp msmtp"
  "libsasl2-modules /usr/share/doc/libsasl2-modules"
  # The chart's Argo CD health script (charts/mailroom/files/argocd/health.lua) runs in a Lua 5.1, as Argo CD's
  # gopher-lua is.
  "lua5.1 lua5.1"
  # The release test (issue 34): a real OCI registry on loopback, and skopeo to copy the image's OCI archive
  # into it (cosign and syft are built from Go modules by scripts/release/tools.sh).
  "docker-registry docker-registry"
  "skopeo skopeo"
)

missing=()
for entry in "${PACKAGES[@]}"; do
  read -r pkg cmd <<<"$entry"
  if [[ $cmd == perl:* ]]; then
    # swaks needs these for STARTTLS and implicit TLS (its Debian package only recommends them).
    perl "-M${cmd#perl:}" -e1 >/dev/null 2>&1 || missing+=("$pkg")
    continue
  fi
  if [[ $cmd == /* ]]; then
    [ -e "$cmd" ] || missing+=("$pkg")
    continue
  fi
  command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "› system packages missing (tests needing them will skip): ${missing[*]}"
  echo "  install them with: sudo apt-get install --no-install-recommends ${missing[*]}"
  exit 0
fi

echo "› installing system packages: ${missing[*]} (apt-get; a minute or two) …"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "› system packages installed"
