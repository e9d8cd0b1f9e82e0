// The free lists behind the hot paths' per-request objects: a Completion a
// requester waits on (PooledCompletion) and the payload of a control
// transaction (PooledPayload). Reuse must not change what a wait sees.
#include <gtest/gtest.h>

#include <systemc>
#include <tlm>

#include "models/common/completion.h"
#include "models/common/service_queue.h"
#include "models/common/sim_time.h"
#include "models/pe/borrowed_extension.h"

namespace kb {
namespace {

TEST(PooledCompletion, AFinishedOneIsReusedAndNestedScopesGetTheirOwn) {
  Completion* first = nullptr;
  {
    PooledCompletion a;
    first = a.get();
    PooledCompletion nested;
    EXPECT_NE(nested.get(), first);
  }
  PooledCompletion again;
  // The last returned (the outer scope's) is the first taken.
  EXPECT_EQ(again.get(), first);
  EXPECT_TRUE(again->finished());
}

TEST(PooledCompletion, OneLeftUnfinishedIsNotReused) {
  {
    PooledCompletion left;
    left->expect(1);  // a part never done: the scope abandons it
  }
  PooledCompletion next;
  EXPECT_TRUE(next->finished());
}

// A requester waits twice, each time on a pooled Completion (the same object
// the second time), through a service queue: each wait ends when its own
// request has been served.
TEST(PooledCompletion, ReusedAcrossWaitsThroughAServiceQueue) {
  ServiceQueue q("q");
  double first_ns = -1, second_ns = -1;
  Completion* first = nullptr;
  Completion* second = nullptr;
  sc_core::sc_spawn([&] {
    {
      PooledCompletion c;
      first = c.get();
      q.push(ns_to_time(10), 64, c.get());
      c->wait();
      first_ns = to_ns(sc_core::sc_time_stamp());
    }
    PooledCompletion c;
    second = c.get();
    q.push(ns_to_time(5), 64, c.get());
    c->wait();
    second_ns = to_ns(sc_core::sc_time_stamp());
  });
  sc_core::sc_start();
  EXPECT_EQ(first, second);
  EXPECT_DOUBLE_EQ(first_ns, 10);
  EXPECT_DOUBLE_EQ(second_ns, 15);
}

struct Probe : tlm::tlm_extension<Probe> {
  int value = 0;
  tlm::tlm_extension_base* clone() const override { return new Probe(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    value = static_cast<const Probe&>(other).value;
  }
};

// A target that records the payload it was handed and the extension on it.
struct Target : tlm::tlm_fw_transport_if<> {
  tlm::tlm_generic_payload* seen = nullptr;
  int value = -1;
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time&) override {
    seen = &trans;
    Probe* p = nullptr;
    trans.get_extension(p);
    value = p ? p->value : -1;
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&,
                                     sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
};

TEST(PooledPayload, PostsReuseOnePayloadAndLeaveNoExtensionOnIt) {
  Target target;
  Probe a, b;
  a.value = 1;
  b.value = 2;
  post_extension(target, a);
  tlm::tlm_generic_payload* first = target.seen;
  EXPECT_EQ(target.value, 1);
  post_extension(target, b);
  EXPECT_EQ(target.seen, first);
  EXPECT_EQ(target.value, 2);
  Probe* left = nullptr;
  first->get_extension(left);
  EXPECT_EQ(left, nullptr);
  EXPECT_EQ(first->get_command(), tlm::TLM_IGNORE_COMMAND);
}

}  // namespace
}  // namespace kb
