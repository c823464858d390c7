#!/usr/bin/env bash
# What the test suite needs on this machine, installed and started when missing:
# PostgreSQL on 127.0.0.1:5432 (trust authentication) and Redis on 127.0.0.1:6379;
# redis-server (the crash tests start private ones; the Sentinel test a primary, two replicas
# and a sentinel, `redis-server <file> --sentinel`, the same binary), OpenSSH's sshd and sftp (the remote
# SFTP tests start a private sshd), Dovecot (the mail tests start a private IMAP server),
# openssl and curl (the SSEK tests), pdftotext (the REST tests read receipts back), chromium
# (the console's browser tests drive it with playwright-core). What is missing comes from
# Debian by apt-get, as root or with sudo: postgresql redis-server openssh-server
# openssh-client dovecot-imapd openssl curl poppler-utils chromium.
#
# `npm test` runs this first, and so does .ci/run (through npm test): one command on a
# fresh machine. Set DG_TEST_SERVICES=skip to leave the machine alone (services you
# started yourself, TEST_DATABASE_ADMIN_URL / TEST_REDIS_URL pointing elsewhere).
set -euo pipefail

[ "${DG_TEST_SERVICES:-}" = skip ] && exit 0

missing=()
need() { # need <package> <command>...
  local package=$1; shift
  for command in "$@"; do
    command -v "$command" >/dev/null 2>&1 || { missing+=("$package"); return; }
  done
}
need postgresql pg_ctlcluster pg_isready
need redis-server redis-server redis-cli
need openssh-server /usr/sbin/sshd
need openssh-client sftp ssh-keygen
need dovecot-imapd /usr/sbin/dovecot doveadm
need openssl openssl
need curl curl
need poppler-utils pdftotext
need chromium /usr/bin/chromium

# Debian starts a package's service when it is installed (sshd and Dovecot listening on
# every interface, the system's PostgreSQL and Redis): the tests want none of them, only
# their own instances on loopback, started below and by the test support code. So the
# install runs under a policy-rc.d that refuses every start (exit 101, "action
# forbidden", as Debian's invoke-rc.d documents), removed again afterwards; a
# policy-rc.d the host already has is left as it is. DG_POLICY_RC_D names another path
# (the script's own test).
policy=${DG_POLICY_RC_D:-/usr/sbin/policy-rc.d}

if [ ${#missing[@]} -gt 0 ]; then
  echo "test services: installing ${missing[*]} (apt-get), starting none of their system services" >&2
  if [ "$(id -u)" = 0 ]; then sudo=(); elif command -v sudo >/dev/null; then sudo=(sudo); else
    echo "test services: need root or sudo to apt-get install ${missing[*]}; install them and run again" >&2
    exit 2
  fi
  placed=
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# Placed by depot-gateway scripts/test-services.sh while it installs packages: start no service.\nexit 101\n' |
      "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod 755 "$policy"
    placed=1
  fi
  trap '[ -n "$placed" ] && "${sudo[@]}" rm -f "$policy"' EXIT
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  [ -n "$placed" ] && "${sudo[@]}" rm -f "$policy"
  placed=
fi

if [ -z "${TEST_DATABASE_ADMIN_URL:-}" ] && ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  version=$(ls /etc/postgresql | sort -V | tail -1)
  echo "test services: starting PostgreSQL $version" >&2
  if [ "$(id -u)" = 0 ]; then
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
  else
    sudo pg_ctlcluster --skip-systemctl-redirect "$version" main start
  fi
  for _ in $(seq 1 60); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
  pg_isready -h 127.0.0.1 -p 5432 -q || { echo "test services: PostgreSQL did not start" >&2; exit 2; }
fi

if [ -z "${TEST_REDIS_URL:-}" ] && ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "test services: starting Redis" >&2
  dir=${TMPDIR:-/tmp}/depot-gateway-test-redis
  mkdir -p "$dir"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir "$dir" --logfile "$dir/redis.log"
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
  redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null || { echo "test services: Redis did not start" >&2; exit 2; }
fi
