// A request a memory target serves for a non-blocking transport.
//
// A memory target (HBM controller, memory port) normally serves a blocking
// b_transport: the initiator's thread waits in it for the target's queues.
// An initiator with no thread per request (PE_DMA's bursts between the PE's
// own HBM and TCM) sends nb_transport_fw(BEGIN_REQ) instead; the target
// queues the request exactly as b_transport would have, returns
// TLM_ACCEPTED, and answers with nb_transport_bw(BEGIN_RESP) when its queues
// have served it, the access latency annotated in the delay: the instant and
// delta at which b_transport would have returned, with no thread suspended.
//
// The target keeps each such request in a PendingAccess: its Completion
// resumes the target (served()) instead of waking a thread, and, when the
// target must wait out the annotated delay before queueing (the banked HBM
// model), the calendar runs arrived() at that instant.
#pragma once

#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/common/calendar.h"
#include "models/common/completion.h"

namespace kb {

class PendingAccess;

// The target side: what a PendingAccess calls back.
class AsyncTarget {
 public:
  // The request's annotated delay has passed (Calendar::call_in on it).
  virtual void arrived(PendingAccess& access) = 0;
  // Its queues have served it.
  virtual void served(PendingAccess& access) = 0;

 protected:
  ~AsyncTarget() = default;
};

class PendingAccess final : public Completion::Resume, public Calendar::Timer {
 public:
  explicit PendingAccess(AsyncTarget& owner) : owner_(owner) { served_.set_resume(this); }
  tlm::tlm_generic_payload* trans = nullptr;
  Completion* served() { return &served_; }
  void resume() override { owner_.served(*this); }
  void on_time() override { owner_.arrived(*this); }

 private:
  AsyncTarget& owner_;
  Completion served_;
};

// A target's PendingAccesses, reused: a request allocates none.
class PendingAccessPool {
 public:
  PendingAccess* take(AsyncTarget& owner, tlm::tlm_generic_payload& trans) {
    PendingAccess* a;
    if (spare_.empty()) {
      a = new PendingAccess(owner);
    } else {
      a = spare_.back().release();
      spare_.pop_back();
    }
    a->trans = &trans;
    return a;
  }
  // Called from served(): the access's Completion touches nothing after it.
  void give(PendingAccess* a) {
    a->trans = nullptr;
    spare_.emplace_back(a);
  }

 private:
  std::vector<std::unique_ptr<PendingAccess>> spare_;
};

// A target's nb_transport_fw takes a new request only: BEGIN_REQ. Anything
// else completes at once with a generic error (false).
inline bool is_request(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase) {
  if (phase == tlm::BEGIN_REQ) return true;
  trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
  return false;
}

// Answers a served request on the target socket `in`: BEGIN_RESP with the
// access `latency` annotated, as b_transport would have returned it.
template <class TargetSocket>
void respond(TargetSocket& in, tlm::tlm_generic_payload& trans, sc_core::sc_time latency) {
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  in->nb_transport_bw(trans, phase, latency);
}

}  // namespace kb
