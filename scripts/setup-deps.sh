#!/usr/bin/env bash
# Installs what building and testing AMK needs on Debian 12: LLVM/MLIR 22,
# clang + lld, clang's runtimes (libFuzzer and the sanitizers, which `clang`
# only recommends), CMake, Ninja, GoogleTest, pytest, and what building the
# wheel needs (pip, wheel, venv, patchelf). The CUDA toolkit is expected at
# /usr/local/cuda (without it the runtime side and ptxas tests are skipped).
set -euo pipefail

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
          clang libclang-rt-dev cmake ninja-build libgtest-dev python3 python3-matplotlib
          python3-pytest python3-pip python3-setuptools python3-wheel
          python3-venv patchelf)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
echo "setup-deps: LLVM/MLIR $(/usr/lib/llvm-22/bin/llvm-config --version)," \
     "CUDA $([[ -x /usr/local/cuda/bin/nvcc ]] && /usr/local/cuda/bin/nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p' || echo 'not found')"
