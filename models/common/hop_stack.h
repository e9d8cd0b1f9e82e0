// The way back of a non-blocking transport through the fabric.
//
// A blocking b_transport returns through every hop it went through, each
// finishing its own work on the way back (a router adds its latency, a link
// carries the response on its reverse wire). A non-blocking transport's
// response (nb_transport_bw) comes back the same way, and each hop that acts
// on it needs what it kept on the way out: a router the port the request came
// in on, a link the request's state. Each pushes one frame here on the way out
// and pops it on the way back, so the path costs no lookup. The initiator
// attaches one HopStack to its payload (PE_DMA's bursts carried without a
// worker); a payload without one is refused by the hops.
#pragma once

#include <array>
#include <cstddef>
#include <tlm>
#include <vector>

namespace kb {

struct HopStack : tlm::tlm_extension<HopStack> {
  // What one hop keeps: a router its input port, a link its request's state.
  struct Frame {
    int port = -1;
    void* state = nullptr;
  };

  tlm::tlm_extension_base* clone() const override { return new HopStack(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const HopStack&>(other);
  }
  // The payload's stack, or null when its initiator attached none.
  static HopStack* of(tlm::tlm_generic_payload& trans) {
    HopStack* h = nullptr;
    trans.get_extension(h);
    return h;
  }
  // The first frames are kept in the stack itself, the rest of a long path
  // (across SIP links) after them: every hop reads its frame where the
  // payload's extension already brought it.
  void push(Frame frame) {
    if (size_ < kInline)
      near_[size_] = frame;
    else
      far_.push_back(frame);
    ++size_;
  }
  Frame pop() {
    --size_;
    if (size_ < kInline) return near_[size_];
    const Frame f = far_.back();
    far_.pop_back();
    return f;
  }
  size_t size() const { return size_; }

 private:
  static constexpr size_t kInline = 14;
  // The depth before the frames: a pop on the way back, long after the push,
  // finds it on the cache line of the first three.
  size_t size_ = 0;
  std::array<Frame, kInline> near_{};
  std::vector<Frame> far_;
};

}  // namespace kb
