#include "models/pe/stage.h"

namespace kb {

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
      if (s.a_view.shape.size() != 2 || s.b_view.shape.size() != 2) return 0;
      const auto m = static_cast<uint64_t>(s.a_view.shape[0]);
      const auto n = static_cast<uint64_t>(s.b_view.shape[1]);
      const uint64_t out = s.single_op ? s.out_view.bytes() : m * n * kFp32;
      return s.a_view.bytes() + s.b_view.bytes() + out;
    }
    case StageKind::kMath:
      for (const TensorHandle& h : s.inputs) in += h.bytes();
      if (s.math_on == Stage::MathOn::kTensors) return in + s.output.bytes();
      return in + 2 * s.elements * kFp32;  // the partial or accumulator, read and written
    default:
      return s.bytes;
  }
}

}  // namespace kb
