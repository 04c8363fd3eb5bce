"""Verifies every DKIM signature of many messages with dkimpy (Debian's python3-dkim), in one process.

Usage: dkimpy-verify.py DNS_HOST DNS_PORT FILE...   Each key record is looked up from the DNS server given (a
real server on loopback) the first time this run needs it, and kept for the run, as a receiver's resolver
keeps an answer for its TTL: a run is one moment of the zone. Prints one JSON line per file:
{"file", "signatures": [{"s", "a", "ok"}]}.
"""
import json
import sys

import dkim
import dkim.util
import dns.exception
import dns.resolver

host, port, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
resolver = dns.resolver.Resolver(configure=False)
resolver.nameservers = [host]
resolver.port = port
resolver.lifetime = 5
resolver.cache = None


answers = {}


def txt(name, timeout=5):
    if name not in answers:
        answers[name] = lookup(name)
    return answers[name]


def lookup(name):
    try:
        answer = resolver.resolve(name.decode() if isinstance(name, bytes) else name, "TXT")
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
        return None
    for record in answer:
        return b"".join(record.strings)
    return None


for path in files:
    with open(path, "rb") as f:
        message = f.read()
    checker = dkim.DKIM(message)
    signatures = [v for k, v in checker.headers if k.lower() == b"dkim-signature"]
    results = []
    for index, value in enumerate(signatures):
        tags = dkim.util.parse_tag_value(value)
        try:
            ok = bool(checker.verify(idx=index, dnsfunc=txt))
        except (dkim.DKIMException, dns.exception.DNSException) as error:
            ok = False
            print(f"{path}: {error}", file=sys.stderr)
        results.append({"s": tags[b"s"].decode(), "a": tags[b"a"].decode(), "ok": ok})
    print(json.dumps({"file": path, "signatures": results}), flush=True)
