#!/usr/bin/env bash
# The GPU engine's checks and benchmark on a lent CUDA machine, in one call (docs/gpu.md).
#
#   here, once:        bash benchmarks/gpu_device.sh fetch
#       downloads into .whl/ (ignored) the wheels the device image lacks or has in a version numba-cuda cannot use:
#       numpy 2.4 for CPython 3.12 (numba-cuda 0.30 compiles no kernel under the image's numpy 2.5) and platformdirs
#   on the device:     bash benchmarks/gpu_device.sh run [CASE...]       (carry .whl)
#       installs the carried wheels beside the image's numba and numba-cuda, runs the tests marked gpu (the
#       simulator's tests and the bundled puzzles, on the device), then python -m benchmarks.gpu; everything
#       lands in $OUT/gpu-device.tar.gz with the log (results/ when $OUT is not set).
#   ROUNDS (default 2), BASELINE_LIMIT (seconds, default 30) and GPU_TUNING ("budget=2048 split=0.5": fields of
#   bench.engines.gpu.Tuning) are passed to the benchmark.
set -uo pipefail
cd "$(dirname "$0")/.."
WHEELS=.whl

fetch() {
    python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$WHEELS" 'numpy>=2.4,<2.5' 'platformdirs>=3'
}

run() {
    out="${OUT:-results}"
    work=$(mktemp -d)
    mkdir -p "$out"
    # whatever was finished comes back, also when the call is cut short
    trap 'tar -czf "$out/gpu-device.tar.gz" -C "$work" .' EXIT
    if compgen -G "$WHEELS/*.whl" >/dev/null; then
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
            "$WHEELS"/*.whl || exit 1
        export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
    fi
    tuning=()
    for pair in ${GPU_TUNING:-}; do tuning+=(--gpu-tuning "$pair"); done
    # the checkout itself, not installed: the image has the other dependencies the GPU and FILA runs need
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
    {
        nvidia-smi -L
        python3 -c 'import numpy, numba, numba_cuda; from numba import cuda; print("numpy", numpy.__version__,
"numba", numba.__version__, "numba-cuda", numba_cuda.__version__, "device", cuda.get_current_device().name)'
        timeout 240 python3 -m pytest -q -p no:cacheprovider -rs -m gpu tests/test_gpu.py
        python3 -m benchmarks.gpu --rounds "${ROUNDS:-2}" --baseline-limit "${BASELINE_LIMIT:-30}" \
            --results "$work" ${tuning[@]+"${tuning[@]}"} "$@"
    } 2>&1 | tee "$work/gpu-device.log"
}

case "${1:-run}" in
    fetch) fetch ;;
    run) shift $(( $# > 0 )); run "$@" ;;
    *) echo "usage: $0 fetch | run [CASE...]" >&2; exit 2 ;;
esac
