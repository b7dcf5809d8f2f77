#!/usr/bin/env bash
# Builds the production image from the Dockerfile with podman and runs the deploy suite against it:
# the image's /app is the artifact checked, its migration command migrates a fresh PostgreSQL
# database, and its own command (`node server.js`, as uid 10001) serves in a container on the host's
# network against the same PostgreSQL, Redis (Upstash REST), S3 and provider stubs; its HEALTHCHECK
# is run; SIGTERM stops it with nothing half-written. Called by .ci/run after the test services start
# (needs TEST_DATABASE_URL and TEST_REDIS_PORT), or by hand:
#   eval "$(scripts/test-services.sh start)" && scripts/container-check.sh
#
# Base image: docker.io/library/node:24-bookworm-slim when it can be pulled. A machine without access
# to a container registry (this project's CI reaches only the npm and Debian registries) gets a
# stand-in under the same name: Debian bookworm (debootstrap, minimal) with the Node.js in use (CI: 24)
# and npm in /usr/local, and its CA bundle (NODE_EXTRA_CA_CERTS), so the image's `npm ci` reaches the
# registry the way the host does.
#
# Engine flags: runc with the cgroupfs manager (crun refuses cgroups in hybrid v1/v2 mode), and no
# default ulimits (podman's default open-files limit is above some machines' hard limit). A machine
# on which no container can start at all prints why and skips the check; every failure after that
# (build, suite) fails.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE="${CONTAINER_IMAGE:-localhost/subscription-ai-backend:check}"
BASE="docker.io/library/node:24-bookworm-slim"
WORK="$(mktemp -d /tmp/container-check.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
missing=()
for tool in podman runc debootstrap; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "container-check: installing ${missing[*]} (apt-get)"
  $SUDO apt-get install -y --no-install-recommends podman runc debootstrap >/dev/null
fi

export CONTAINERS_CONF="$WORK/containers.conf"
printf '[containers]\ndefault_ulimits = []\n' >"$CONTAINERS_CONF"
ENGINE=(podman --runtime runc --cgroup-manager=cgroupfs)
podman --version

# ---- the base image ----
if "${ENGINE[@]}" image exists "$BASE"; then
  echo "container-check: base image $BASE is present"
elif timeout 90 "${ENGINE[@]}" pull -q "$BASE" >/dev/null 2>&1; then
  echo "container-check: pulled $BASE"
else
  echo "container-check: $BASE cannot be pulled here; building a stand-in (debootstrap bookworm + this machine's Node.js $(node --version))"
  mirror="$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)"
  rootfs="$WORK/rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian}" >"$WORK/debootstrap.log" 2>&1 ||
    { tail -20 "$WORK/debootstrap.log"; exit 1; }
  node_bin="$(readlink -f "$(command -v node)")"
  # npm's own folder (npm-cli.js lives in <npm>/bin), wherever the Node in use came from.
  npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
  mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/lib/node_modules" "$rootfs/etc/ssl/certs"
  cp "$node_bin" "$rootfs/usr/local/bin/node"
  cp -r "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  ca_bundle="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
  extra_ca=()
  if [ -f "$ca_bundle" ]; then
    cp "$ca_bundle" "$rootfs/etc/ssl/certs/ca-certificates.crt"
    extra_ca=(--change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt")
  fi
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -cf "$WORK/base.tar" .
  "${ENGINE[@]}" import -q \
    --change "ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin" \
    "${extra_ca[@]}" --change 'CMD ["node"]' "$WORK/base.tar" "$BASE" >/dev/null
  rm -rf "$rootfs" "$WORK/base.tar"
fi

# ---- can this machine start a container at all? ----
if ! probe="$("${ENGINE[@]}" run --rm --network=host "$BASE" node -e 'console.log("container ok")' 2>&1)"; then
  echo "container-check: SKIPPED: no container can start on this machine:"
  echo "$probe" | tail -5
  echo "container-check: the deploy suite (npm run test:deploy) has run the same command outside a container."
  exit 0
fi
echo "container-check: $probe"

# ---- the image, as the Dockerfile builds it ----
npm_cache="$(npm config get cache)"
start=$(date +%s)
"${ENGINE[@]}" build --pull=never --network=host --format docker \
  --volume "$npm_cache:/root/.npm" \
  --tag "$IMAGE" . >"$WORK/build.log" 2>&1 || { tail -60 "$WORK/build.log"; exit 1; }
echo "container-check: built $IMAGE in $(($(date +%s) - start)) s ($("${ENGINE[@]}" image inspect --format '{{.Size}}' "$IMAGE") bytes)"

# ---- the deploy suite against the image ----
status=0
DEPLOY_IMAGE="$IMAGE" DEPLOY_CONTAINER_ENGINE="${ENGINE[*]}" npm run test:deploy || status=$?
"${ENGINE[@]}" rmi --force "$IMAGE" >/dev/null 2>&1 || true
"${ENGINE[@]}" image prune --force >/dev/null 2>&1 || true
exit "$status"
