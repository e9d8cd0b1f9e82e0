#include "firmware/kernels/attention_long_decode.h"

#include <algorithm>

#include <stdexcept>

#include "firmware/kernels/softmax_state_reduce.h"

namespace kb {
namespace fw {

DecodeCase decode_case(int n) {
  switch (n) {
    case 1:
      return {CubeSplit::kSp, PeSplit::kTp};
    case 2:
      return {CubeSplit::kRepl, PeSplit::kTp};
    case 3:
      return {CubeSplit::kRepl, PeSplit::kSp};
    case 4:
      return {CubeSplit::kSp, PeSplit::kSp};
    default:
      throw std::invalid_argument(
          "case " + std::to_string(n) +
          " does not exist: the cases are 1 (Cube-SP x PE-TP), 2 "
          "(Cube-Repl x PE-TP), 3 (Cube-Repl x PE-SP), 4 (Cube-SP x PE-SP)");
  }
}

std::string to_string(const DecodeCase& c) {
  return std::string(c.cube == CubeSplit::kSp ? "Cube-SP" : "Cube-Repl") + " x " +
         (c.pe == PeSplit::kSp ? "PE-SP" : "PE-TP");
}

KvBlock kv_block(const DecodeCase& c, int64_t s_kv, unsigned cubes, unsigned pes, unsigned k,
                 unsigned p) {
  auto part = [](int64_t total, int64_t n, int64_t i) {
    return KvBlock{i * total / n, (i + 1) * total / n - i * total / n};
  };
  const KvBlock cube = c.cube == CubeSplit::kSp ? part(s_kv, cubes, k) : KvBlock{0, s_kv};
  const KvBlock in = part(cube.count, pes, p);
  return {cube.first + in.first, in.count};
}

int64_t block_positions(const DecodeCase& c, int64_t s_kv, unsigned cubes, unsigned pes) {
  const int64_t per_cube = c.cube == CubeSplit::kSp ? (s_kv + cubes - 1) / cubes : s_kv;
  return (per_cube + pes - 1) / pes;
}

void attention_long_decode(Tl& tl, const LongDecodeArgs& a) {
  const PeAddr me = tl.self();
  const AttnPlacement& at = a.at;
  const unsigned k = me.cube - at.cube_start, p = me.pe - at.pe_start;
  if (me.sip != at.sip || k >= at.cubes || p >= at.pes)
    throw std::invalid_argument("attention_long_decode: " + to_string(me) +
                                " is not a rank of this placement");
  const int64_t G = a.q.at(k).shape()[0], d = a.q.at(k).shape()[1];
  const bool tp = a.mode.pe == PeSplit::kTp;
  const bool cube_sp = a.mode.cube == CubeSplit::kSp;
  if (tp && G % at.pes != 0)
    throw std::invalid_argument("attention_long_decode: PE-TP needs G=" + std::to_string(G) +
                                " query heads to divide over P=" + std::to_string(at.pes) + " PEs");
  const int64_t rows = tp ? G / at.pes : G;  // the query rows this rank computes
  const int64_t row0 = tp ? rows * p : 0;

  // Who sends to this rank: open their rings first, so the grants overlap the sweep.
  std::vector<PeAddr> peers;
  auto in_cube = [&](unsigned q) { return at.rank(k, q); };
  auto cube_root = [&](unsigned c) { return at.rank(c, 0); };
  if (tp) {
    if (p == 0)
      for (unsigned q = 1; q < at.pes; ++q) peers.push_back(in_cube(q));
  } else {
    for (unsigned q : reduce_role(a.intra, p, at.pes).from) peers.push_back(in_cube(q));
  }
  if (cube_sp && p == 0)
    for (unsigned c : reduce_role(ReduceShape::kTree, k, at.cubes).from)
      peers.push_back(cube_root(c));
  if (!peers.empty()) tl.ipcq_open(peers);

  // The sweep over this rank's KV.
  SweepArgs sa;
  const Tensor& q = a.q[k];
  sa.q = tl.load(tl.ref(q.addr() + static_cast<uint64_t>(row0 * d) * 2, {rows, d}, DType::kFp16));
  if (tp) {
    // Every rank streams every block of its cube, each from its own first:
    // at any time the P ranks read P different owners' HBM, not one.
    sa.kv = a.kv.at(k);
    std::rotate(sa.kv.begin(), sa.kv.begin() + static_cast<long>(p % sa.kv.size()), sa.kv.end());
  } else
    sa.kv = {a.kv.at(k).at(p)};
  sa.tile = a.tile;
  sa.scale = a.scale;
  sa.variant = a.variant;
  SweepBuffers buf = make_sweep_buffers(tl, rows, a.tile);
  // The cube root of a PE-TP group keeps room for every PE's rows.
  PackedState own = PackedState::make(tl, tp && p == 0 ? G : rows, d);
  SoftmaxState st = own.state(tl, 0, rows);
  attention_sweep(tl, sa, buf, st, nullptr);
  tl.wait();

  // Level 2: inside the cube, to PE 0.
  if (tp) {
    if (p > 0) {
      // m, l and O rows travel as three messages into their place at the root.
      tl.send(in_cube(0), st.m);
      tl.send(in_cube(0), st.l);
      tl.send(in_cube(0), st.o);
      tl.wait();
      return;
    }
    for (unsigned q = 1; q < at.pes; ++q) {
      tl.recv_async(in_cube(q), own.m(tl, rows * q, rows));
      tl.recv_async(in_cube(q), own.l(tl, rows * q, rows));
      tl.recv_async(in_cube(q), own.o(tl, rows * q, rows));
    }
    tl.wait();
  } else if (!reduce_level(tl, a.intra, p, at.pes, in_cube, own)) {
    return;
  }

  // Level 1: across the cube roots, to cube 0 (Cube-SP).
  if (cube_sp && !reduce_level(tl, ReduceShape::kTree, k, at.cubes, cube_root, own)) return;

  // The root (and, under Cube-Repl, every cube's PE 0) normalises; only cube 0 writes O.
  SoftmaxState full = own.state(tl, 0, G);
  Tensor linv = tl.math("recip", {full.l}, {}, tl.empty({G, 1}, DType::kFp32));
  Tensor on = tl.math("mul_bcast", {full.o, linv}, {{"bcast_axis", int64_t{1}}}, full.o);
  if (k == 0) tl.store(a.out, on);
  tl.wait();
}

}  // namespace fw
}  // namespace kb
