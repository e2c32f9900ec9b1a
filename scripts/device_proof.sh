#!/usr/bin/env bash
# The device proof (issue 15): measure this machine's accelerator with `suanli bench suite` (≤ 7 minutes of
# measuring by default; cases the budget does not reach are recorded as skipped), one JSON file per measurement.
#
#   scripts/device_proof.sh --build-wheels DIR         # beforehand, where pip reaches PyPI: suanli's wheel and
#                                                      # its dependencies for the device's Python (PY_VERSION, 3.12)
#   scripts/device_proof.sh [--wheels DIR] OUTDIR [suite options]   # on the device, offline
#
# On the device it first says in one line what is missing; suanli's dependencies it installs from DIR into a
# private folder (never into the machine's Python), suanli itself from its wheel in DIR or else from this
# repository's src/. Then: python -m suanli.cli.main bench suite OUTDIR [options] (e.g. --budget-s 300,
# --only 'decode-*', --size tiny). Afterwards, where suanli is installed: suanli bench import OUTDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"

if [ "${1:-}" = "--build-wheels" ]; then
  dir="${2:?usage: scripts/device_proof.sh --build-wheels DIR}"
  mkdir -p "$dir"
  "$PY" -m pip wheel -q --no-deps -w "$dir" .
  # suanli's runtime dependencies (pyproject.toml) and theirs, as binary wheels for the device's Python
  "$PY" -m pip download -q --only-binary=:all: --python-version "${PY_VERSION:-3.12}" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$dir" "pydantic>=2.6" "PyYAML>=6.0" "numpy>=1.26" "typer>=0.12" "rich>=13.7"
  ls "$dir"
  exit 0
fi

wheels=""
if [ "${1:-}" = "--wheels" ]; then
  wheels="${2:?usage: scripts/device_proof.sh --wheels DIR OUTDIR}"
  shift 2
fi
out="${1:?usage: scripts/device_proof.sh [--wheels DIR] OUTDIR [suite options]}"
shift

site="${TMPDIR:-/tmp}/suanli-proof-site"
export PYTHONPATH="$site:$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
if ! "$PY" scripts/device_proof_check.py; then
  missing="$("$PY" scripts/device_proof_check.py --names)"
  if [ -n "$missing" ]; then
    if [ -z "$wheels" ]; then
      echo "device proof: pass --wheels DIR (made by scripts/device_proof.sh --build-wheels DIR) to install them" >&2
      exit 2
    fi
    # shellcheck disable=SC2086  # one pip name per word
    "$PY" -m pip install -q --no-index --find-links "$wheels" --target "$site" --upgrade $missing
  fi
  if [ -n "$wheels" ] && ls "$wheels"/suanli-*.whl >/dev/null 2>&1; then
    "$PY" -m pip install -q --no-index --no-deps --target "$site" --upgrade "$wheels"/suanli-*.whl
    export PYTHONPATH="$site${PYTHONPATH#"$site:$PWD/src"}"
  fi
  "$PY" scripts/device_proof_check.py || exit 2
fi
exec "$PY" -m suanli.cli.main bench suite "$out" "$@"
