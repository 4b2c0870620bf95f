#!/usr/bin/env bash
# Installs the Debian packages mxl needs to build and test, only those missing. Idempotent; never prompts.
set -euo pipefail

packages=(
    g++ cmake ninja-build pkg-config git ccache
    libfabric-dev libfabric-bin libucx-dev
    libboost-program-options-dev nlohmann-json3-dev libfmt-dev doctest-dev libsystemd-dev libmicrohttpd-dev
    libpng-dev libcpp-httplib-dev etcd-server libssl-dev python3-jsonschema
    iproute2 util-linux systemd
    libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-plugins-base gstreamer1.0-tools
)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]} == 0)); then
    exit 0
fi

echo "mxl: installing ${missing[*]}"
sudo_cmd=()
if ((EUID != 0)); then
    sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
