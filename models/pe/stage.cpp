#include "models/pe/stage.h"

namespace kb {

namespace {

// StageOperands no stage holds, kept with their vectors' storage. Never
// destroyed: stages destroyed at exit may still give theirs back.
std::vector<StageOperands*>& spare_operands() {
  static auto* spare = new std::vector<StageOperands*>;
  return *spare;
}

}  // namespace

const StageOperands& StageOperands::none() {
  static const StageOperands empty;
  return empty;
}

StageOperands* StageOperandsRef::take(const StageOperands* copy) {
  auto& spare = spare_operands();
  if (spare.empty()) return copy ? new StageOperands(*copy) : new StageOperands;
  StageOperands* p = spare.back();
  spare.pop_back();
  // The next one taken is most likely for the next stage of the same tile,
  // built right after this one: it is fetched meanwhile. (A kept one was
  // given back when its stage's token was reused, long after its stage ran:
  // it is seldom in cache still.)
  if (!spare.empty()) {
    const char* next = reinterpret_cast<const char*>(spare.back());
    for (size_t at = 0; at < sizeof(StageOperands); at += 64) __builtin_prefetch(next + at, 1);
  }
  StageOperands& o = *p;
  if (copy) {
    o = *copy;
    return p;
  }
  // Back to a new one's values; the vectors keep their storage. Done here,
  // not when the last stage gave it back: the stage about to write it has
  // it in cache then.
  o.a_view = TensorHandle{};
  o.b_view = TensorHandle{};
  o.out_view = TensorHandle{};
  o.inputs.clear();
  o.staged_inputs.clear();
  o.output = TensorHandle{};
  o.math_extra.clear();
  return p;
}

void StageOperandsRef::release() noexcept {
  if (!p_) return;
  auto& spare = spare_operands();
  try {
    spare.push_back(p_);
  } catch (...) {  // no room to keep it: free it
    delete p_;
  }
  p_ = nullptr;
}

const char* to_string(EngineKind e) {
  switch (e) {
    case EngineKind::kDma:
      return "dma";
    case EngineKind::kTcm:
      return "tcm";
    case EngineKind::kGemm:
      return "gemm";
    case EngineKind::kMath:
      return "math";
    case EngineKind::kIpcq:
      return "ipcq";
  }
  return "?";
}

const char* to_string(StageKind s) {
  switch (s) {
    case StageKind::kDmaRead:
      return "DMA_READ";
    case StageKind::kDmaWrite:
      return "DMA_WRITE";
    case StageKind::kFetch:
      return "FETCH";
    case StageKind::kStore:
      return "STORE";
    case StageKind::kGemm:
      return "GEMM";
    case StageKind::kMath:
      return "MATH";
    case StageKind::kIpcq:
      return "IPCQ";
    case StageKind::kIpcqSignal:
      return "IPCQ_SIGNAL";
  }
  return "?";
}

EngineKind engine_of(StageKind s) {
  switch (s) {
    case StageKind::kDmaRead:
    case StageKind::kDmaWrite:
      return EngineKind::kDma;
    case StageKind::kFetch:
    case StageKind::kStore:
      return EngineKind::kTcm;
    case StageKind::kGemm:
      return EngineKind::kGemm;
    case StageKind::kMath:
      return EngineKind::kMath;
    case StageKind::kIpcq:
    case StageKind::kIpcqSignal:
      return EngineKind::kIpcq;
  }
  return EngineKind::kMath;
}

uint64_t logged_bytes(const Stage& s) {
  constexpr uint64_t kFp32 = 4;
  uint64_t in = 0;
  switch (s.kind) {
    case StageKind::kGemm: {
      const StageOperands& o = s.operands();
      if (o.a_view.shape.size() != 2 || o.b_view.shape.size() != 2) return 0;
      const auto m = static_cast<uint64_t>(o.a_view.shape[0]);
      const auto n = static_cast<uint64_t>(o.b_view.shape[1]);
      const uint64_t out = s.single_op ? o.out_view.bytes() : m * n * kFp32;
      return o.a_view.bytes() + o.b_view.bytes() + out;
    }
    case StageKind::kMath:
      for (const TensorHandle& h : s.operands().inputs) in += h.bytes();
      if (s.math_on == Stage::MathOn::kTensors) return in + s.operands().output.bytes();
      return in + 2 * s.elements * kFp32;  // the partial or accumulator, read and written
    default:
      return s.bytes;
  }
}

}  // namespace kb
