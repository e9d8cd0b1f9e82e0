#!/usr/bin/env bash
# Installs the platform from BUILD_DIR into a temporary prefix (stripped, as a
# package would be: cmake --install --strip), then builds
# every example in examples/ out of tree against it (gemm_relu, own_platform,
# math_variant, layernorm and rtl_variant with find_package(KernBench),
# custom_bench with pkg-config), runs each, and checks its output. The README's
# test command runs it after the suite.
#
#   bash scripts/check_examples.sh [BUILD_DIR]      (default: build)
#
# Exit status 0 when every example builds, runs and prints what it should.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
scratch=$(mktemp -d /tmp/kb_examples_XXXXXX)
trap 'rm -rf "$scratch"' EXIT
prefix="$scratch/prefix"
cmake --install "$build" --prefix "$prefix" --strip > "$scratch/install.log"

fail() {
  echo "check_examples: $*" >&2
  exit 1
}

# gemm_relu: find_package(KernBench) through CMAKE_PREFIX_PATH.
cmake -S examples/gemm_relu -B "$scratch/gemm_relu" -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build "$scratch/gemm_relu" -j2 > /dev/null
(cd "$scratch" && ./gemm_relu/gemm_relu --topology tiny --json r.json > out.txt) ||
  fail "gemm_relu failed: $(cat "$scratch/out.txt")"
grep -q "relu(A·W) on 4 PEs" "$scratch/out.txt" || fail "gemm_relu printed no table"
grep -q '"bench": "gemm-relu"' "$scratch/r.json" || fail "gemm_relu wrote no result"
grep -q '"system.sip0.cube0.pe0.cpu"' "$scratch/r.json" || fail "gemm_relu result has no stats"
if grep -q "Copyright" "$scratch/out.txt"; then fail "gemm_relu printed the SystemC banner"; fi

# own_platform: a hand-written sc_main with its own Platform and HostRuntime; it
# prints what a kernel gets of each PE's memories (Platform::describe).
cmake -S examples/own_platform -B "$scratch/own_platform" -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build "$scratch/own_platform" -j2 > /dev/null
(cd "$scratch" && ./own_platform/own_platform tiny > own.txt) ||
  fail "own_platform failed: $(cat "$scratch/own.txt")"
grep -Eq "^ +TCM arena +622592 B " "$scratch/own.txt" ||
  fail "own_platform shows no 622592-byte TCM arena for tiny: $(cat "$scratch/own.txt")"
grep -q "ns simulated" "$scratch/own.txt" || fail "own_platform ran no kernel"
if grep -q "Copyright" "$scratch/own.txt"; then fail "own_platform printed the SystemC banner"; fi

# custom_bench: pkg-config through PKG_CONFIG_PATH; the whole CLI around it.
PKG_CONFIG_PATH=$(echo "$prefix"/lib*/pkgconfig) \
  cmake -S examples/custom_bench -B "$scratch/custom_bench" > /dev/null
cmake --build "$scratch/custom_bench" -j2 > /dev/null
bench="$scratch/custom_bench/my_kernbench"
"$bench" --list-benches > "$scratch/list.txt"
grep -q "^hbm-read" "$scratch/list.txt" || fail "hbm-read is not listed"
grep -q "^gemm" "$scratch/list.txt" || fail "the shipped benches are missing"
"$bench" -p rows=64 > "$scratch/hbm.txt" || fail "hbm-read failed"
grep -q "bound GB/s" "$scratch/hbm.txt" || fail "hbm-read printed no table"
set +e
"$bench" -p rows=-1 2> "$scratch/err.txt" > /dev/null
code=$?
set -e
[ "$code" = 2 ] || fail "a bad --param gave exit $code, not 2"

# math_variant: a PE_MATH of the example's own, selected by --set pe.math.impl.
cmake -S examples/math_variant -B "$scratch/math_variant" -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build "$scratch/math_variant" -j2 > /dev/null
variant="$scratch/math_variant/math_variant"
"$variant" --set pe.math.impl=pipelined -p ops=relu > "$scratch/variant.txt" ||
  fail "math_variant failed"
grep -q "PE_MATH impl pipelined" "$scratch/variant.txt" || fail "the variant was not built"
grep -Eq "relu +4096 +72.0 +64.0 +8 " "$scratch/variant.txt" ||
  fail "the variant's stage is not 8 cycles over the TLM model: $(cat "$scratch/variant.txt")"

# layernorm: a MATH op kind, a recipe and a norm kernel of its own; its
# LayerNorm in data mode within 1e-3 of a double reference on one PE (the bench
# fails above it), then in every layer of the llm bench against its reference.
cmake -S examples/layernorm -B "$scratch/layernorm" -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build "$scratch/layernorm" -j2 > /dev/null
ln="$scratch/layernorm/layernorm"
"$ln" --topology tiny --data --json "$scratch/ln.json" > "$scratch/ln.txt" ||
  fail "layernorm failed: $(cat "$scratch/ln.txt")"
grep -Eq '"max_abs_err": [0-9.e-]+' "$scratch/ln.json" ||
  fail "layernorm checked nothing: $(cat "$scratch/ln.txt")"
"$ln" --topology tiny --bench llm --data --json "$scratch/ln_llm.json" -p norm=layernorm \
  -p model=llama3_8b -p model.layers=2 -p model.hidden=120 -p model.heads=6 \
  -p model.kv_heads=3 -p model.d_head=20 -p model.ffn=200 -p model.vocab=250 -p ranks=6 \
  -p context=37 > "$scratch/ln_llm.txt" 2>&1 ||
  fail "llm with norm=layernorm failed: $(cat "$scratch/ln_llm.txt")"
grep -q "norm layernorm" "$scratch/ln_llm.txt" || fail "the llm bench did not run norm=layernorm"
rel=$(grep -Eo '"logits_max_rel_err": [0-9.e+-]+' "$scratch/ln_llm.json" | awk '{print $2}')
awk -v r="$rel" 'BEGIN { exit !(r != "" && r <= 0.01) }' ||
  fail "llm logits with norm=layernorm are ${rel:-missing} off the reference (more than 1e-2)"

# rtl_variant: the example's own Verilog (the vector unit, two stages deeper)
# behind the platform's RTL bridge; only where the build has Verilator.
if grep -q 'KernBench_HAVE_RTL "ON"' "$prefix"/lib*/cmake/KernBench/KernBenchConfig.cmake; then
  cmake -S examples/rtl_variant -B "$scratch/rtl_variant" -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
  cmake --build "$scratch/rtl_variant" -j2 > /dev/null
  rtl="$scratch/rtl_variant/rtl_variant"
  "$rtl" --set pe.math.impl=deep_rtl -p ops=add --data --json "$scratch/rtl.json" \
    > "$scratch/rtl.txt" || fail "rtl_variant failed"
  grep -Eq "add +4096 +69.0 +64.0 +5 " "$scratch/rtl.txt" ||
    fail "the deeper unit is not 2 cycles over the built-in RTL's 3: $(cat "$scratch/rtl.txt")"
  grep -q '"mismatches": 0' "$scratch/rtl.json" || fail "the deeper unit's numerics differ"
  rtl_done=", rtl_variant"
else
  rtl_done=" (rtl_variant skipped: this build has no Verilator)"
fi

echo "check_examples: gemm_relu, own_platform (find_package), custom_bench (pkg-config), math_variant, layernorm${rtl_done} built and ran"
echo "check_examples: the stripped install is $(du -sm "$prefix" | cut -f1) MB; the gemm_relu example is $(du -sm "$scratch/gemm_relu/gemm_relu" | cut -f1) MB"
