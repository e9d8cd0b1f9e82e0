#include "firmware/kernels/gemm_async.h"

#include <algorithm>

#include "models/commands/commands.h"
#include "models/common/checked_math.h"

namespace kb {
namespace fw {

namespace {

// The [rows, cols] block at (r0, c0) of the 2-D tensor `t`, in place: the same
// memory (TCM or HBM), so its rows are `t`'s row length apart
// (TensorHandle::row_stride). The engines only move bytes: FETCH reads
// rows·cols elements, a DMA walks the rows with that stride. The view carries
// `t`'s pending command, so its first consumer waits for the data.
Tensor tile_view(Tl& tl, const Tensor& t, int64_t r0, int64_t c0, int64_t rows, int64_t cols) {
  const uint64_t e = dtype_bytes(t.h.dtype);
  Tensor v =
      tl.ref(t.h.addr + static_cast<uint64_t>(r0 * t.h.stride() + c0) * e, {rows, cols}, t.h.dtype);
  v.h.row_stride = t.h.stride();
  v.pending = t.pending;
  return v;
}

// One single-op DMA of `src` (a possibly strided HBM view) into the existing
// TCM tensor `dst`, keeping dst's row stride: an edge tile lands in the
// top-left corner of a full-size buffer (tl.load_into would pack its rows).
Tensor load_into(Tl& tl, const Tensor& dst, const Tensor& src) {
  const uint64_t e = dtype_bytes(src.h.dtype);
  DmaReadCmd c;
  c.src = src.h.addr;
  c.dst = dst.h.addr;
  c.row_bytes = static_cast<uint64_t>(src.h.cols()) * e;
  c.rows = static_cast<uint32_t>(src.h.rows());
  c.src_stride = static_cast<uint64_t>(src.h.stride()) * e;
  c.dst_stride = static_cast<uint64_t>(dst.h.stride()) * e;
  Tensor out = dst;
  out.pending = tl.cpu().issue(c);
  return out;
}

// The accumulator as the next dot's `acc`: with DepSync::kNoWait its pending
// command (the previous dot) is dropped, so tl.dot does not wait for it.
Tensor acc_input(const Tensor& acc, DepSync sync) {
  Tensor in = acc;
  if (sync == DepSync::kNoWait) in.pending.reset();
  return in;
}

// Finishes output tile (m0, n0): fp32 accumulator -> fp16 tile (a MATH cast,
// as the composite's STORE writes C in C's dtype) -> C in HBM (tl.store).
// `c16` is a reused fp16 TCM tile; `prev_store` the store that last read it.
void cast_and_store(Tl& tl, const GemmOperands& ops, const Tensor& acc, const Tensor& c16,
                    CommandHandle& prev_store, int64_t m0, int64_t n0, DepSync sync,
                    IssueRecord& rec) {
  const int64_t mm = acc.shape()[0], nn = acc.shape()[1];
  // WAR on c16: the store of the tile before last must have read it.
  if (prev_store && sync == DepSync::kWait) tl.cpu().wait(prev_store);
  Tensor c16_view = c16;
  c16_view.h.shape = {mm, nn};
  c16_view.pending.reset();
  const Tensor half = tl.math("cast", {acc}, {}, c16_view);  // waits for the last dot
  rec.add(half);
  const Tensor stored = tl.store(tile_view(tl, ops.c, m0, n0, mm, nn), half);  // waits for cast
  rec.add(stored);
  prev_store = stored.pending;
}

}  // namespace

const char* to_string(DepSync s) {
  return s == DepSync::kWait ? "wait" : "nowait";
}

// ---- async-full -------------------------------------------------------------------
//
// Variants (what is in TCM before the window; the rest is loaded inside it):
//   load_ref   A pre-loaded; W loaded whole by one single-op DMA in the window
//   ref_ref    A and W each loaded whole by one single-op DMA in the window
//   load_load  both pre-loaded; the window holds only dots, casts and stores
void gemm_async_full(Tl& tl, const GemmOperands& ops, DepSync sync, IssueRecord& rec) {
  const int64_t M = ops.a.shape()[0], K = ops.a.shape()[1], N = ops.w.shape()[1];
  const int64_t tm = ops.tile_m, tk = ops.tile_k, tn = ops.tile_n;
  const int64_t nm = ceil_div(M, tm), nk = ceil_div(K, tk), nn = ceil_div(N, tn);

  // Step 1: the whole operands into TCM. tl.load is lazy: it issues one
  // DmaRead for the whole tensor and returns at once; the first dot that
  // reads a view of it waits for that DMA (the only wait on the data).
  Tensor a = ops.a, w = ops.w;
  if (!a.h.in_tcm()) {
    a = tl.load(a);
    rec.add(a);
  }
  if (!w.h.in_tcm()) {
    w = tl.load(w);
    rec.add(w);
  }

  // Step 2: one dot per native tile (m, n, k) on TCM views of the loaded
  // operands: A block [tm, tk] at (m·tm, k·tk), W block [tk, tn] at
  // (k·tk, n·tn), both with the full operand's row stride. K is the
  // outermost loop, so consecutive dots write different output tiles: a dot
  // depends only on the dot of its own output tile one K step earlier (its
  // accumulator), issued nm·nn dots before. With one output tile (M, N <= the
  // native tile) that chain is the whole kernel.
  std::vector<Tensor> acc(static_cast<size_t>(nm * nn));
  for (int64_t ki = 0; ki < nk; ++ki)
    for (int64_t mi = 0; mi < nm; ++mi)
      for (int64_t ni = 0; ni < nn; ++ni) {
        const int64_t mm = std::min(tm, M - mi * tm), kk = std::min(tk, K - ki * tk),
                      nnn = std::min(tn, N - ni * tn);
        const Tensor av = tile_view(tl, a, mi * tm, ki * tk, mm, kk);
        const Tensor wv = tile_view(tl, w, ki * tk, ni * tn, kk, nnn);
        Tensor& c = acc[static_cast<size_t>(mi * nn + ni)];
        // The first K step creates the fp32 accumulator tile in TCM (dot
        // without acc); the next ones accumulate into it (dot with acc).
        c = ki == 0 ? tl.dot(av, wv) : tl.dot(av, wv, acc_input(c, sync));
        rec.add(c);
      }

  // Step 3: each output tile, cast to fp16 and stored to C. Two fp16 staging
  // tiles in turn, so a cast need not wait for the store just issued.
  const Tensor c16[2] = {tl.empty({tm, tn}), tl.empty({tm, tn})};
  CommandHandle store_of[2];
  for (int64_t mi = 0; mi < nm; ++mi)
    for (int64_t ni = 0; ni < nn; ++ni) {
      const auto t = static_cast<size_t>(mi * nn + ni);
      cast_and_store(tl, ops, acc[t], c16[t % 2], store_of[t % 2], mi * tm, ni * tn, sync, rec);
    }

  // Step 4: one wait for everything issued.
  tl.wait();
}

// ---- async-tiled ------------------------------------------------------------------
//
// Variants:
//   load_ref   A pre-loaded (its tiles are TCM views); W streamed: one DmaRead
//              of the [tk, tn] W tile per step, into one of two W buffers
//   ref_ref    A and W streamed: per step one DmaRead of the [tm, tk] A tile
//              and one of the W tile, each into one of two buffers
//   load_load  both pre-loaded: nothing to stream, so the kernel issues
//              async-full's dots, casts and stores, in the composite's
//              (m, n, k) order instead of async-full's (k, m, n)
namespace {

// async-tiled's streamed operands. The steps are the native tiles in the
// composite's order: output tiles (m, n), K tiles inside. Step s uses buffer
// s % 2 of each streamed operand; the buffers are allocated once (by the
// constructor) and reused.
class TileStream {
 public:
  struct Step {
    int64_t mi, ni, ki;
  };

  TileStream(Tl& tl, const GemmOperands& ops, DepSync sync, IssueRecord& rec)
      : tl_(tl),
        ops_(ops),
        sync_(sync),
        rec_(rec),
        M_(ops.a.shape()[0]),
        K_(ops.a.shape()[1]),
        N_(ops.w.shape()[1]),
        tm_(ops.tile_m),
        tk_(ops.tile_k),
        tn_(ops.tile_n),
        nn_(ceil_div(N_, tn_)),
        nk_(ceil_div(K_, tk_)),
        stream_a_(!ops.a.h.in_tcm()),
        stream_w_(!ops.w.h.in_tcm()) {
    for (int b = 0; b < 2; ++b) {
      if (stream_a_) abuf_[b] = tl.empty({tm_, tk_});
      if (stream_w_) wbuf_[b] = tl.empty({tk_, tn_});
    }
  }

  bool streams() const { return stream_a_ || stream_w_; }

  // The prefetch: the DMA of step s's streamed tiles into buffer s % 2. That
  // buffer was last read by the dot of step s - 2; with kWait the DMA is
  // issued only once that dot is done (write after read).
  void prefetch(int64_t s) {
    const int b = static_cast<int>(s % 2);
    if (reader_[b] && sync_ == DepSync::kWait) tl_.cpu().wait(reader_[b]);
    const Step st = step_at(s);
    if (stream_a_) {
      const Tensor src = a_tile(st);
      a_in_[b] = load_into(tl_, into(abuf_[b], src), src);
      rec_.add(a_in_[b]);
    }
    if (stream_w_) {
      const Tensor src = w_tile(st);
      w_in_[b] = load_into(tl_, into(wbuf_[b], src), src);
      rec_.add(w_in_[b]);
    }
  }

  // What the dot of step `st` reads: buffer b as filled by its latest DMA
  // (pending on it), or the tile of the pre-loaded TCM operand.
  Tensor a(int b, const Step& st) const { return stream_a_ ? a_in_[b] : a_tile(st); }
  Tensor w(int b, const Step& st) const { return stream_w_ ? w_in_[b] : w_tile(st); }
  // `dot` is the latest reader of buffer b.
  void read_by(int b, const CommandHandle& dot) { reader_[b] = dot; }

 private:
  Step step_at(int64_t s) const { return Step{s / (nn_ * nk_), (s / nk_) % nn_, s % nk_}; }
  // The operand tiles of a step, in place in HBM (what a DMA reads) or in the
  // pre-loaded TCM operand (what the dot reads).
  Tensor a_tile(const Step& st) const {
    return tile_view(tl_, ops_.a, st.mi * tm_, st.ki * tk_, std::min(tm_, M_ - st.mi * tm_),
                     std::min(tk_, K_ - st.ki * tk_));
  }
  Tensor w_tile(const Step& st) const {
    return tile_view(tl_, ops_.w, st.ki * tk_, st.ni * tn_, std::min(tk_, K_ - st.ki * tk_),
                     std::min(tn_, N_ - st.ni * tn_));
  }
  static Tensor into(const Tensor& buf, const Tensor& src) {
    Tensor dst = buf;  // an edge tile fills the buffer's top-left corner
    dst.h.shape = src.h.shape;
    dst.h.row_stride = buf.h.cols();
    return dst;
  }

  Tl& tl_;
  const GemmOperands& ops_;
  DepSync sync_;
  IssueRecord& rec_;
  int64_t M_, K_, N_, tm_, tk_, tn_, nn_, nk_;
  bool stream_a_, stream_w_;
  Tensor abuf_[2], wbuf_[2];
  CommandHandle reader_[2];   // the dot that last read buffer b
  Tensor a_in_[2], w_in_[2];  // buffer b as filled by its latest DMA (pending on it)
};

}  // namespace

void gemm_async_tiled(Tl& tl, const GemmOperands& ops, DepSync sync, IssueRecord& rec) {
  const int64_t M = ops.a.shape()[0], K = ops.a.shape()[1], N = ops.w.shape()[1];
  const int64_t tm = ops.tile_m, tk = ops.tile_k, tn = ops.tile_n;
  const int64_t nm = ceil_div(M, tm), nk = ceil_div(K, tk), nn = ceil_div(N, tn);

  // Step 1: the steps and the buffers of the streamed operands (TileStream).
  const int64_t n_steps = nm * nn * nk;
  TileStream stream(tl, ops, sync, rec);

  // Step 2, the prefetch of a step's streamed tiles: TileStream::prefetch.
  const Tensor c16[2] = {tl.empty({tm, tn}), tl.empty({tm, tn})};
  CommandHandle store_of[2];
  int64_t s = 0;
  if (n_steps > 0 && stream.streams()) stream.prefetch(0);
  for (int64_t mi = 0; mi < nm; ++mi)
    for (int64_t ni = 0; ni < nn; ++ni) {
      // The output tile's fp32 accumulator lives in this scope: its TCM is
      // reused by the next output tile once the store below has been issued
      // (tl.store waited for the cast, the accumulator's last reader).
      const auto scope = tl.scratch_scope();
      Tensor acc;
      for (int64_t ki = 0; ki < nk; ++ki, ++s) {
        const int b = static_cast<int>(s % 2);
        const bool more = s + 1 < n_steps && stream.streams();
        // Step 3 (kNoWait): the next step's DMA goes out before this step's
        // dot, so it has the dot's dispatch time to land.
        if (more && sync == DepSync::kNoWait) stream.prefetch(s + 1);
        // Step 4: the dot of this step on buffer b (it waits for the
        // buffer's DMA), accumulating into the output tile's accumulator from
        // the second K step on (with kWait it also waits for the previous
        // dot, the accumulator's producer).
        const TileStream::Step st{mi, ni, ki};
        const Tensor av = stream.a(b, st);
        const Tensor wv = stream.w(b, st);
        acc = ki == 0 ? tl.dot(av, wv) : tl.dot(av, wv, acc_input(acc, sync));
        rec.add(acc);
        stream.read_by(b, acc.pending);
        // Step 3 (kWait): the next step's DMA goes out right after this dot,
        // so it overlaps the dot's execution. Its buffer's last reader is the
        // previous dot: inside an output tile this dot already waited for it
        // (its accumulator); at an output tile's first K step the prefetch
        // waits for it.
        if (more && sync == DepSync::kWait) stream.prefetch(s + 1);
      }
      // Step 5: the output tile is complete: cast it to fp16 and store it
      // to C, issued and not waited for.
      const auto t = static_cast<size_t>(mi * nn + ni);
      cast_and_store(tl, ops, acc, c16[t % 2], store_of[t % 2], mi * tm, ni * tn, sync, rec);
    }
  // Step 6: one wait for everything issued.
  tl.wait();
}

}  // namespace fw
}  // namespace kb
