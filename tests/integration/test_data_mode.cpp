// Data mode end to end: real bytes in every memory and
// through the fabric, engines that compute, checked against double-precision
// references; timing identical with and without --data; memory cost; clear
// errors for bad input. Each test elaborates its own Platform (one per
// process) and switches data mode on right after constructing it.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <systemc>
#include <vector>

#include "firmware/tl.h"
#include "models/commands/commands.h"
#include "models/common/dtype_convert.h"
#include "models/common/errors.h"
#include "platform/bench/gemm_study.h"
#include "platform/config/topology_loader.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"
#include "platform/runtime/npy.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

namespace fs = std::filesystem;

using test::kTiny;
const PeId kPe0{0, 0, 0};
constexpr double kU32 = 5.9604644775390625e-08;  // 2^-24: unit roundoff of fp32

using test::contains;
using test::describe;
using test::read_text;
using test::RunResult;
using test::TempDir;

// Random values rounded to `dtype` (what storing them does), fixed seed.
std::vector<float> random_values(size_t n, float lo, float hi, uint32_t seed, DType dtype) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = round_to(u(rng), dtype);
  return v;
}

// Integers in [-2, 2].
std::vector<float> small_ints(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> u(-2, 2);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(u(rng));
  return v;
}

// C = A·B in double (A [m,k], B [k,n], row-major).
std::vector<double> matmul_ref(const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                               int64_t k, int64_t n) {
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        c[static_cast<size_t>(i * n + j)] +=
            static_cast<double>(a[static_cast<size_t>(i * k + p)]) *
            b[static_cast<size_t>(p * n + j)];
  return c;
}

// Σ_p |A[i,p]|·|B[p,j]|: the scale of the rounding error of one dot product.
std::vector<double> abs_matmul(const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                               int64_t k, int64_t n) {
  std::vector<float> aa(a), bb(b);
  for (float& x : aa) x = std::abs(x);
  for (float& x : bb) x = std::abs(x);
  return matmul_ref(aa, bb, m, k, n);
}

using test::run_expecting_error;

class DataModeTiny {
 public:
  DataModeTiny() : platform(load_topology_file(kTiny)), rt(platform) {
    platform.set_data_mode(true);
  }
  Platform platform;
  HostRuntime rt;
};

// ---------------------------------------------------------------------------
// Backdoor: the host runtime's write/read (TLM transport_dbg) in every memory.

TEST(DataMode, BackdoorRoundTripsInEveryMemory) {
  DataModeTiny t;
  const AddressMap& map = t.platform.address_map();
  // HBM of a PE other than the first, in each dtype (values exactly representable).
  const std::vector<float> vals = {1.0f, -2.5f, 0.125f, 1024.0f, -0.0f, 3.0f};
  for (DType dt : {DType::kFp16, DType::kBf16, DType::kFp32, DType::kInt32}) {
    const fw::Tensor x = t.rt.alloc_hbm({0, 3, 1}, {2, 3}, dt);
    std::vector<float> v = vals;
    if (dt == DType::kInt32) {
      v[1] = -2.0f;
      v[2] = 7.0f;
    }
    t.rt.write(x, v);
    EXPECT_EQ(t.rt.read(x), v) << to_string(dt);
  }
  // Writing converts with round-to-nearest-even, reading gives the stored value.
  const fw::Tensor h = t.rt.alloc_hbm(kPe0, {3}, DType::kFp16);
  t.rt.write(h, {0.1f, 65520.0f, 1.0f + 1.0f / 2048});
  EXPECT_EQ(t.rt.read(h), (std::vector<float>{round_to(0.1f, DType::kFp16),
                                              std::numeric_limits<float>::infinity(), 1.0f}));

  // TCM, cube SRAM and host memory, through tensors placed at raw addresses.
  struct Where {
    const char* name;
    uint64_t addr;
  };
  const std::vector<Where> places = {{"tcm", map.tcm(0, 2, 1, 4096)},
                                     {"sram", map.sram(0, 3, 1 << 20)},
                                     {"host", map.host(128 << 20)}};
  for (const Where& w : places) {
    fw::Tensor x;
    x.h.id = t.rt.ids().next();
    x.h.addr = w.addr;
    x.h.shape = {4, 5};
    x.h.dtype = DType::kFp32;
    const std::vector<float> v = random_values(20, -100, 100, 11, DType::kFp32);
    t.rt.write(x, v);
    EXPECT_EQ(t.rt.read(x), v) << w.name;
    // The raw bytes are the little-endian fp32 encoding.
    std::vector<uint8_t> raw(80);
    t.platform.debug_read(w.addr, raw.data(), raw.size());
    std::vector<uint8_t> want(80);
    encode_elements(v.data(), v.size(), DType::kFp32, want.data());
    EXPECT_EQ(raw, want) << w.name;
  }
  // A strided view writes and reads only its rows.
  fw::Tensor s;
  s.h.id = t.rt.ids().next();
  s.h.addr = map.sram(0, 0, 0);
  s.h.shape = {2, 2};
  s.h.row_stride = 4;
  s.h.dtype = DType::kFp32;
  t.rt.write(s, {1, 2, 3, 4});
  EXPECT_EQ(t.rt.read(s), (std::vector<float>{1, 2, 3, 4}));
  std::vector<float> row(8);
  t.platform.debug_read(map.sram(0, 0, 0), reinterpret_cast<uint8_t*>(row.data()), 32);
  EXPECT_EQ(row, (std::vector<float>{1, 2, 0, 0, 3, 4, 0, 0}));
  // Addresses outside a region are an error naming the address.
  uint8_t byte = 0;
  try {
    t.platform.debug_read(map.tcm(0, 0, 0, t.platform.config().pe.tcm.size_bytes), &byte, 1);
    FAIL() << "no error for an address past the TCM";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(contains(e.what(), "TCM")) << e.what();
  }
}

// The documented choice: memory that was never written reads as zero (a
// fresh allocation is zeros), and reading it allocates no backing pages.
TEST(DataMode, MemoryNeverWrittenReadsAsZero) {
  DataModeTiny t;
  const AddressMap& map = t.platform.address_map();
  Pe& pe = t.platform.pe({0, 1, 0});
  const uint64_t hbm_pages = pe.hbm.store().pages_touched();
  const uint64_t tcm_pages = pe.tcm.dma_port.store().pages_touched();
  const fw::Tensor x = t.rt.alloc_hbm({0, 1, 0}, {64, 64}, DType::kFp16);
  EXPECT_EQ(t.rt.read(x), std::vector<float>(size_t{64} * 64, 0.0f));
  for (uint64_t addr : {map.hbm(0, 1, 0, 32 << 20), map.tcm(0, 1, 0, 512 << 10),
                        map.sram(0, 2, 4 << 20), map.host(200 << 20)}) {
    std::vector<uint8_t> b(3 << 12, 0xab);
    t.platform.debug_read(addr, b.data(), b.size());
    EXPECT_EQ(b, std::vector<uint8_t>(b.size(), 0)) << format_address(addr);
  }
  EXPECT_EQ(pe.hbm.store().pages_touched(), hbm_pages);
  EXPECT_EQ(pe.tcm.dma_port.store().pages_touched(), tcm_pages);
  // A write touches only the pages it covers.
  t.rt.write(t.rt.alloc_hbm({0, 1, 0}, {2}, DType::kFp32), {1, 2});
  EXPECT_EQ(pe.hbm.store().pages_touched(), hbm_pages + 1);

  // DMA from never-written memory also reads zeros.
  const fw::Tensor src = t.rt.alloc_hbm(kPe0, {8, 32}, DType::kFp16);
  const fw::Tensor dst = t.rt.alloc_hbm(kPe0, {8, 32}, DType::kFp16);
  t.rt.write(dst, std::vector<float>(256, 7.0f));
  t.rt.launch([&](fw::Tl& tl) { tl.store(dst, tl.load(src)); });
  t.rt.run();
  EXPECT_EQ(t.rt.read(dst), std::vector<float>(256, 0.0f));
}

// DMA moves the bytes through the fabric: SRAM of another cube -> TCM ->
// host memory and another PE's HBM.
TEST(DataMode, DmaCarriesBytesAcrossTheFabric) {
  DataModeTiny t;
  const AddressMap& map = t.platform.address_map();
  const std::vector<float> v = random_values(size_t{16} * 48, -10, 10, 12, DType::kFp16);
  fw::Tensor sram;
  sram.h.id = t.rt.ids().next();
  sram.h.addr = map.sram(0, 3, 8192);
  sram.h.shape = {16, 48};
  sram.h.dtype = DType::kFp16;
  t.rt.write(sram, v);
  fw::Tensor host = sram, far = sram;
  host.h.id = t.rt.ids().next();
  host.h.addr = map.host(1 << 20);
  far = t.rt.alloc_hbm({0, 3, 1}, {16, 48});
  t.rt.launch([&](fw::Tl& tl) {
    const fw::Tensor x = tl.load(tl.ref(sram.addr(), {16, 48}));
    tl.store(host, x);
    tl.store(far, x);
  });
  t.rt.run();
  EXPECT_EQ(t.rt.read(host), v);
  EXPECT_EQ(t.rt.read(far), v);
}

TEST(DataMode, NpyFilesInAndOutOfHbm) {
  DataModeTiny t;
  TempDir tmp;
  NpyArray a;
  a.shape = {2, 3};
  a.dtype = DType::kFp16;
  const std::vector<float> v = {1, -2, 0.5f, 3.25f, -0.125f, 65504};
  a.bytes.resize(12);
  encode_elements(v.data(), v.size(), DType::kFp16, a.bytes.data());
  write_npy(tmp / "in.npy", a);
  const fw::Tensor x = t.rt.from_npy({0, 2, 0}, tmp / "in.npy");
  EXPECT_EQ(x.h.shape, a.shape);
  EXPECT_EQ(x.h.dtype, DType::kFp16);
  EXPECT_EQ(t.rt.read(x), v);
  t.rt.to_npy(x, tmp / "out.npy");
  EXPECT_EQ(read_text(tmp / "out.npy"), read_text(tmp / "in.npy"));
  // bf16 has no NumPy type: it is written as fp32 ('<f4').
  const fw::Tensor b = t.rt.alloc_hbm(kPe0, {3}, DType::kBf16);
  t.rt.write(b, {1.5f, -3.0f, 0.0078125f});
  t.rt.to_npy(b, tmp / "bf16.npy");
  const NpyArray r = read_npy(tmp / "bf16.npy");
  EXPECT_EQ(r.dtype, DType::kFp32);
  EXPECT_EQ(decode_elements(r.bytes.data(), 3, DType::kFp32),
            (std::vector<float>{1.5f, -3.0f, 0.0078125f}));
  EXPECT_THROW(t.rt.from_npy(kPe0, tmp / "missing.npy"), UsageError);
}

// ---------------------------------------------------------------------------
// GEMM numerics.

// Every gemm-sweep shape and variant that fits the default topology, random
// fp16 inputs in [-1, 1), fp32 accumulation, fp16 output: max relative error
// (max|C - ref| / max|ref|) <= 1e-2.
TEST(DataMode, GemmSweepErrorsAreWithinOnePercent) {
  Platform p(load_default_topology());
  p.set_data_mode(true);
  HostRuntime rt(p);
  const std::vector<GemmShape> shapes = {{32, 64, 32},    {32, 256, 32},    {32, 1024, 32},
                                         {32, 3072, 32},  {128, 1024, 128}, {256, 256, 256},
                                         {512, 2048, 512}};
  unsigned ran = 0;
  std::cout << "GEMM data mode, default topology (C = A·W, fp16 in/out, fp32 accumulate)\n"
            << "  shape            variant     max_abs_err   max_rel_err\n";
  for (const GemmShape& s : shapes)
    for (const std::string v : {"load_ref", "ref_ref", "load_load"}) {
      const std::string label =
          std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
      const std::string why = gemm_fit(p.config(), s, v);
      if (!why.empty()) {
        std::cout << "  " << std::left << std::setw(17) << label << std::setw(12) << v
                  << "skipped: " << why << "\n";
        continue;
      }
      const nlohmann::json pt = run_gemm_point(rt, s, v, /*data=*/true);
      ++ran;
      ASSERT_TRUE(pt.contains("max_rel_err")) << pt.dump();
      const double rel = pt["max_rel_err"], abs_err = pt["max_abs_err"];
      std::cout << "  " << std::left << std::setw(17) << label << std::setw(12) << v
                << std::scientific << std::setprecision(3) << std::setw(14) << abs_err << rel
                << std::defaultfloat << "\n";
      EXPECT_LE(rel, 1e-2) << label << " " << v;
      EXPECT_GT(pt["window_ns"].get<double>(), 0) << label << " " << v;
    }
  std::cout << std::flush;
  EXPECT_EQ(ran, 19u);  // 7 shapes x 3 variants, less the 2 that do not fit
}

// Small integer-valued inputs make every product and partial sum exact in
// fp32, so the result equals the double reference exactly: composite GEMM
// (streamed and pre-loaded operands, fp16 and bf16) and the primitive dot,
// including its accumulate form.
TEST(DataMode, GemmOfSmallIntegersIsExact) {
  DataModeTiny t;
  const int64_t M = 64, K = 256, N = 64;
  const std::vector<float> a = small_ints(M * K, 21), w = small_ints(K * N, 22),
                           acc0 = small_ints(M * N, 23);
  const std::vector<double> ref = matmul_ref(a, w, M, K, N);
  std::vector<float> want(ref.begin(), ref.end()), want_acc(want);
  for (size_t i = 0; i < want_acc.size(); ++i) want_acc[i] += acc0[i];

  for (DType dt : {DType::kFp16, DType::kBf16}) {
    const fw::Tensor A = t.rt.alloc_hbm(kPe0, {M, K}, dt), W = t.rt.alloc_hbm(kPe0, {K, N}, dt);
    const fw::Tensor C1 = t.rt.alloc_hbm(kPe0, {M, N}, DType::kFp32),
                     C2 = t.rt.alloc_hbm(kPe0, {M, N}, DType::kFp32),
                     C3 = t.rt.alloc_hbm(kPe0, {M, N}, DType::kFp32),
                     C4 = t.rt.alloc_hbm(kPe0, {M, N}, DType::kFp32);
    t.rt.write(A, a);
    t.rt.write(W, w);
    t.rt.write(C4, acc0);
    t.rt.launch([&](fw::Tl& tl) {
      fw::CompositeArgs streamed;  // both operands streamed from HBM
      streamed.a = A;
      streamed.b = W;
      streamed.out = C1;
      tl.wait(tl.composite(streamed));
      const fw::Tensor la = tl.load(A), lw = tl.load(W);
      fw::CompositeArgs loaded;  // both in TCM
      loaded.a = la;
      loaded.b = lw;
      loaded.out = C2;
      tl.wait(tl.composite(loaded));
      tl.store(C3, tl.dot(la, lw));               // primitive GemmCmd into an fp32 TCM tensor
      tl.store(C4, tl.dot(la, lw, tl.load(C4)));  // accumulate: C4 + A·W
    });
    t.rt.run();
    EXPECT_EQ(t.rt.read(C1), want) << to_string(dt) << " composite, streamed";
    EXPECT_EQ(t.rt.read(C2), want) << to_string(dt) << " composite, pre-loaded";
    EXPECT_EQ(t.rt.read(C3), want) << to_string(dt) << " dot";
    EXPECT_EQ(t.rt.read(C4), want_acc) << to_string(dt) << " dot with acc";
  }
}

// The accumulate form of a composite: an `add` epilogue whose operand is the
// GEMM's own output (here in HBM, which the tile plan allows: "An epilogue may
// name the GEMM's own output (accumulate form)") gives C = C_old + A·W.
// The accumulate form reads the output's old value, so the output must be
// on chip: naming an HBM output in the epilogue is rejected with a clear
// error naming the PE (accumulate into a TCM output, then store it).
TEST(DataMode, AccumulatingIntoAnHbmOutputIsAClearError) {
  DataModeTiny t;
  const int64_t M = 64, K = 128, N = 64;
  const std::vector<float> a = small_ints(M * K, 31), w = small_ints(K * N, 32),
                           c0 = small_ints(M * N, 33);
  const std::vector<double> ref = matmul_ref(a, w, M, K, N);
  std::vector<float> want(c0);
  for (size_t i = 0; i < want.size(); ++i) want[i] += static_cast<float>(ref[i]);
  const fw::Tensor A = t.rt.alloc_hbm(kPe0, {M, K}), W = t.rt.alloc_hbm(kPe0, {K, N}),
                   C = t.rt.alloc_hbm(kPe0, {M, N}, DType::kFp32);
  t.rt.write(A, a);
  t.rt.write(W, w);
  t.rt.write(C, c0);
  t.rt.launch([&](fw::Tl& tl) {
    fw::CompositeArgs args;
    args.a = A;
    args.b = W;
    args.out = C;
    fw::OpArgs add;
    add.op = "add";
    add.operands = {{"other", C}};
    args.epilogue = {add};
    args.rw = {C};
    tl.wait(tl.composite(args));
  });
  const std::string err = run_expecting_error(t.rt);
  EXPECT_NE(err.find("not in TCM"), std::string::npos) << err;
  EXPECT_NE(err.find("system.sip0.cube0.pe0"), std::string::npos) << err;
  (void)want;
}

// The recipe-style composite (firmware/recipes.h): a KERNEL-scope prologue
// O = mul_bcast(O, corr), the head GEMM P·V (P in TCM, V streamed from HBM)
// into O, and an OUTPUT_TILE `add other=O` epilogue: O_new = O_old·corr + P·V.
TEST(DataMode, RecipeCompositeComputesOCorrPlusPV) {
  DataModeTiny t;
  const int64_t G = 32, T = 128, D = 64;  // 1 x 2 output tiles, 2 K steps
  const std::vector<float> p = random_values(G * T, 0.0f, 1.0f, 41, DType::kFp16);
  const std::vector<float> v = random_values(T * D, -1.0f, 1.0f, 42, DType::kFp16);
  const std::vector<float> o_old = random_values(G * D, -4.0f, 4.0f, 43, DType::kFp32);
  std::vector<float> corr = random_values(G, 0.0f, 1.0f, 44, DType::kFp32);
  corr[0] = 0.0f;  // a row whose previous tiles were fully masked
  corr[1] = 1.0f;  // a row whose max did not move
  const fw::Tensor P = t.rt.alloc_hbm(kPe0, {G, T}), V = t.rt.alloc_hbm(kPe0, {T, D}),
                   O_in = t.rt.alloc_hbm(kPe0, {G, D}, DType::kFp32),
                   corr_in = t.rt.alloc_hbm(kPe0, {G, 1}, DType::kFp32),
                   O_out = t.rt.alloc_hbm(kPe0, {G, D}, DType::kFp32);
  t.rt.write(P, p);
  t.rt.write(V, v);
  t.rt.write(O_in, o_old);
  t.rt.write(corr_in, corr);
  t.rt.launch([&](fw::Tl& tl) {
    const fw::Tensor o = tl.load(O_in), c = tl.load(corr_in), pt = tl.load(P);
    tl.wait();  // prologue operands are not waited for by composite()
    OpSpec scale;
    scale.kind = "mul_bcast";
    scale.scope = Scope::kKernel;
    scale.operands = {{"src", o.h}, {"other", c.h}};
    scale.out = o.h;
    scale.extra = {{"bcast_axis", int64_t{1}}};
    fw::CompositeArgs args;
    args.prologue_ops = {scale};
    args.a = pt;
    args.b = V;
    args.out = o;
    fw::OpArgs add;
    add.op = "add";
    add.scope = Scope::kOutputTile;
    add.operands = {{"other", o}};
    args.epilogue = {add};
    args.rw = {o};
    tl.store(O_out, tl.composite(args));
  });
  t.rt.run();
  const std::vector<float> got = t.rt.read(O_out);
  const std::vector<double> pv = matmul_ref(p, v, G, T, D), pv_abs = abs_matmul(p, v, G, T, D);
  double worst = 0;
  for (int64_t i = 0; i < G; ++i)
    for (int64_t j = 0; j < D; ++j) {
      const auto e = static_cast<size_t>(i * D + j);
      const double scaled = static_cast<double>(o_old[e]) * corr[static_cast<size_t>(i)];
      const double ref = scaled + pv[e];
      // P, V are fp16 values and O, corr fp32 values, all exact inputs of the
      // reference: the only rounding is fp32 (the product O·corr, T products
      // and sums of the dot, the final add): (T + 2) unit roundoffs of the
      // magnitudes involved bound it.
      const double tol = (T + 2) * kU32 * (std::abs(scaled) + pv_abs[e]);
      EXPECT_NEAR(got[e], ref, tol) << i << "," << j;
      worst = std::max(worst, std::abs(got[e] - ref));
    }
  std::cout << "recipe composite O = O*corr + P@V: max abs error " << worst << "\n";
  // Row 0 (corr = 0) is exactly P·V as fp32 computes it; it must not keep O_old.
  EXPECT_NEAR(got[0], pv[0], (T + 2) * kU32 * pv_abs[0]);
}

// A·Wᵀ with a real transpose: W [N,K] loaded into TCM, `trans` into [K,N],
// then a dot (and a composite streaming A), for high-contrast inputs (values
// ±10^u, u in [-2, 2]: 0.01 to 100 in magnitude, either sign).
TEST(DataMode, TransposeKernelComputesAWTransposed) {
  DataModeTiny t;
  const int64_t M = 32, K = 64, N = 96;
  std::mt19937 rng(51);
  std::uniform_real_distribution<float> ex(-2.0f, 2.0f);
  std::bernoulli_distribution neg(0.5);
  auto contrast = [&](size_t n) {
    std::vector<float> v(n);
    for (float& x : v)
      x = round_to((neg(rng) ? -1.0f : 1.0f) * std::pow(10.0f, ex(rng)), DType::kFp16);
    return v;
  };
  const std::vector<float> a = contrast(M * K), w = contrast(N * K);
  std::vector<float> wt(static_cast<size_t>(K * N));
  for (int64_t j = 0; j < N; ++j)
    for (int64_t k = 0; k < K; ++k)
      wt[static_cast<size_t>(k * N + j)] = w[static_cast<size_t>(j * K + k)];
  const std::vector<double> ref = matmul_ref(a, wt, M, K, N), ref_abs = abs_matmul(a, wt, M, K, N);
  // What a reshape (W's bytes read as [K,N]) would give: far off, so the
  // check below can tell a transpose from a reshape.
  const std::vector<double> reshaped = matmul_ref(a, w, M, K, N);
  double reshape_gap = 0;
  for (size_t e = 0; e < ref.size(); ++e)
    reshape_gap = std::max(reshape_gap, std::abs(ref[e] - reshaped[e]));
  EXPECT_GT(reshape_gap, 1000.0);

  const fw::Tensor A = t.rt.alloc_hbm(kPe0, {M, K}), W = t.rt.alloc_hbm(kPe0, {N, K}),
                   C1 = t.rt.alloc_hbm(kPe0, {M, N}, DType::kFp32),
                   C2 = t.rt.alloc_hbm(kPe0, {M, N}, DType::kFp32),
                   Wt_out = t.rt.alloc_hbm(kPe0, {K, N});
  t.rt.write(A, a);
  t.rt.write(W, w);
  t.rt.launch([&](fw::Tl& tl) {
    const fw::Tensor lw = tl.load(W), la = tl.load(A);
    const fw::Tensor lwt = tl.math("trans", {lw}, {}, tl.empty({K, N}));
    tl.store(Wt_out, lwt);
    tl.store(C1, tl.dot(la, lwt));
    fw::CompositeArgs args;
    args.a = A;  // streamed from HBM
    args.b = lwt;
    args.out = C2;
    tl.wait(tl.composite(args));
  });
  t.rt.run();
  EXPECT_EQ(t.rt.read(Wt_out), wt);  // values at [j,k] landed at [k,j], exactly
  for (const fw::Tensor* c : {&C1, &C2}) {
    const std::vector<float> got = t.rt.read(*c);
    double worst = 0;
    for (size_t e = 0; e < ref.size(); ++e) {
      // Exact fp16 inputs; fp32 products and K-term sums: K unit roundoffs of Σ|a||w|.
      EXPECT_NEAR(got[e], ref[e], (K + 1) * kU32 * ref_abs[e])
          << (c == &C1 ? "dot " : "composite ") << e;
      worst = std::max(worst, std::abs(got[e] - ref[e]) / std::max(1.0, ref_abs[e]));
    }
    std::cout << (c == &C1 ? "A·Wt (dot)" : "A·Wt (composite)")
              << ": max |err| / Σ|a||w| = " << worst << "\n";
  }
}

// tl.math("trans", {W}) without an explicit output: the result must be a
// [K,N] tensor (the transpose's shape), or the call a clear error; a handle
// labelled [N,K] over transposed bytes is a silent reshape.
TEST(DataMode, TransWithoutAnOutputHasTheTransposedShape) {
  DataModeTiny t;
  const int64_t N = 48, K = 64;
  const std::vector<float> w = random_values(N * K, -1, 1, 61, DType::kFp16);
  const fw::Tensor W = t.rt.alloc_hbm(kPe0, {N, K});
  t.rt.write(W, w);
  Shape shape;
  t.rt.launch([&](fw::Tl& tl) {
    const fw::Tensor wt = tl.math("trans", {tl.load(W)});
    tl.wait(wt);
    shape = wt.shape();
  });
  const std::string err = run_expecting_error(t.rt);
  if (!err.empty()) {
    EXPECT_TRUE(contains(err, "trans")) << err;
    return;
  }
  // Product bug (fails with { 48, 64 }): tl.math sizes its implicit output
  // like the first input (tl.h), so `trans` returns a handle labelled [N,K]
  // holding the [K,N] transposed bytes, and PE_MATH accepts it because it
  // compares element counts only (pe_math.cpp: r.numel() != output.numel()).
  // A consumer then sees a reshape, which data mode must not
  // do; a dot(A, Wt) with A [M,K] faults with "mismatched shapes".
  EXPECT_EQ(shape, (Shape{K, N}));
}

// ---------------------------------------------------------------------------
// Timing and memory, through the real CLI binary.

RunResult run_cli(const std::vector<std::string>& args, const TempDir& tmp) {
  return test::run_kernbench(args, tmp);
}

// Timing does not depend on data mode: the op log of the same run with and
// without --data is byte-identical.
TEST(DataMode, OpLogIsIdenticalWithAndWithoutData) {
  TempDir tmp;
  const std::vector<std::string> common = {"--bench", "gemm-sweep", "--param",
                                           "shapes=32x1024x32,128x1024x128", "--quiet"};
  std::vector<std::string> timing = common, data = common;
  timing.insert(timing.end(), {"--oplog", tmp / "timing.jsonl", "--json", tmp / "timing.json"});
  data.insert(data.end(), {"--data", "--oplog", tmp / "data.jsonl", "--json", tmp / "data.json"});
  const RunResult rt = run_cli(timing, tmp), rd = run_cli(data, tmp);
  ASSERT_EQ(rt.exit_code, 0) << describe(rt);
  ASSERT_EQ(rd.exit_code, 0) << describe(rd);
  const std::string a = read_text(tmp / "timing.jsonl"), b = read_text(tmp / "data.jsonl");
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a.size(), b.size());
  EXPECT_TRUE(a == b) << "op logs differ";
  const auto jt = nlohmann::json::parse(read_text(tmp / "timing.json"));
  const auto jd = nlohmann::json::parse(read_text(tmp / "data.json"));
  EXPECT_FALSE(jt["data_mode"].get<bool>());
  EXPECT_TRUE(jd["data_mode"].get<bool>());
  EXPECT_EQ(jt["sim_time_ns"], jd["sim_time_ns"]);
  EXPECT_EQ(jt["op_log"], jd["op_log"]);
  ASSERT_TRUE(jd["metrics"].contains("max_rel_err")) << jd["metrics"].dump();
  EXPECT_LE(jd["metrics"]["max_rel_err"].get<double>(), 1e-2);
  EXPECT_FALSE(jt["metrics"].contains("max_rel_err"));
  std::cout << "op log: " << std::count(a.begin(), a.end(), '\n') << " records, " << a.size()
            << " bytes, identical with and without --data\n";
}

// A --data run on the default topology that moves 64 MiB (HBM of one PE to
// the next): its peak RSS stays under 2 x 64 MiB above the same run without
// --data. The source was never written, so reading it allocates nothing; the
// destination's pages are what data mode pays for.
TEST(DataMode, SixtyFourMiBRunStaysUnderTwiceThatInRss) {
  TempDir tmp;
  const uint64_t bytes = 64ull << 20;
  const std::vector<std::string> args = {"--bench", "dma",
                                         "--param", "src=hbm:0.0.0+0",
                                         "--param", "dst=hbm:0.0.1+0",
                                         "--param", "bytes=" + std::to_string(bytes),
                                         "--quiet"};
  std::vector<std::string> data = args;
  data.emplace_back("--data");
  const RunResult rt = run_cli(args, tmp), rd = run_cli(data, tmp);
  ASSERT_EQ(rt.exit_code, 0) << describe(rt);
  ASSERT_EQ(rd.exit_code, 0) << describe(rd);
  const double mib = 1024.0;
  const double base = rt.max_rss_kib / mib, with_data = rd.max_rss_kib / mib;
  std::cout << std::fixed << std::setprecision(1) << "peak RSS, dma of 64 MiB on the default "
            << "topology: without --data " << base << " MiB, with --data " << with_data << " MiB (+"
            << with_data - base << " MiB; limit 128 MiB + " << base << ")\n"
            << std::defaultfloat;
  EXPECT_LT(with_data, 2.0 * 64.0 + base);
}

// ---------------------------------------------------------------------------
// Bad input.

TEST(DataMode, GemmDtypeMismatchIsAClearError) {
  DataModeTiny t;
  const fw::Tensor A = t.rt.alloc_hbm(kPe0, {32, 64}, DType::kFp16),
                   B = t.rt.alloc_hbm(kPe0, {64, 32}, DType::kBf16);
  t.rt.write(A, std::vector<float>(size_t{32} * 64, 1.0f));
  t.rt.write(B, std::vector<float>(size_t{64} * 32, 1.0f));
  t.rt.launch([&](fw::Tl& tl) { tl.wait(tl.dot(tl.load(A), tl.load(B))); });
  const std::string err = run_expecting_error(t.rt);
  EXPECT_TRUE(contains(err, "sip0.cube0.pe0")) << err;
  EXPECT_TRUE(contains(err, "dtype mismatch")) << err;
  EXPECT_TRUE(contains(err, "fp16")) << err;
  EXPECT_TRUE(contains(err, "bf16")) << err;
}

// Product bug (this test aborts with "free(): invalid pointer"): PE_SCHEDULER
// rejects the composite with SC_REPORT_ERROR (which throws) inside the
// b_transport that PeCpu::issue makes with a CompositeRequest extension on
// its stack (pe_cpu.cpp, issue()). The exception skips
// trans.clear_extension(&req); ~tlm_generic_payload then calls free() on
// every extension still set, i.e. deletes the stack object. Every composite
// rejected by the scheduler (PlanError) crashes the process this way instead
// of reporting its clear message (which names the PE and the dtypes).
TEST(DataMode, CompositeGemmDtypeMismatchIsAClearError) {
  DataModeTiny t;
  const fw::Tensor A = t.rt.alloc_hbm(kPe0, {32, 64}, DType::kFp16),
                   B = t.rt.alloc_hbm(kPe0, {64, 32}, DType::kBf16),
                   C = t.rt.alloc_hbm(kPe0, {32, 32}, DType::kFp32);
  t.rt.launch([&](fw::Tl& tl) {
    fw::CompositeArgs args;
    args.a = A;
    args.b = B;
    args.out = C;
    tl.wait(tl.composite(args));
  });
  const std::string err = run_expecting_error(t.rt);
  EXPECT_TRUE(contains(err, "sip0.cube0.pe0")) << err;
  EXPECT_TRUE(contains(err, "dtype mismatch")) << err;
  EXPECT_TRUE(contains(err, "fp16")) << err;
  EXPECT_TRUE(contains(err, "bf16")) << err;
}

TEST(DataMode, MathDtypeMismatchIsAClearError) {
  DataModeTiny t;
  const fw::Tensor X = t.rt.alloc_hbm(kPe0, {4, 8}, DType::kFp16),
                   Y = t.rt.alloc_hbm(kPe0, {4, 8}, DType::kFp32);
  t.rt.launch([&](fw::Tl& tl) { tl.wait(tl.math("add", {tl.load(X), tl.load(Y)})); });
  const std::string err = run_expecting_error(t.rt);
  EXPECT_TRUE(contains(err, "sip0.cube0.pe0")) << err;
  EXPECT_TRUE(contains(err, "dtype mismatch")) << err;
  EXPECT_TRUE(contains(err, "fp16")) << err;
  EXPECT_TRUE(contains(err, "fp32")) << err;
}

}  // namespace
}  // namespace kb
