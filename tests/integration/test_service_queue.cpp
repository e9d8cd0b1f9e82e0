// ServiceQueue (models/common/service_queue.h) on simulated time: admission and service order.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>

#include "models/common/completion.h"
#include "models/common/service_queue.h"
#include "models/common/sim_time.h"

namespace kb {
namespace {

// A thread that pushes one 10 ns request with `order` into `q` at `at_ns` and
// records when it was served in done_ns[order].
void spawn_requester(ServiceQueue& q, std::map<uint64_t, double>& done_ns, double at_ns,
                     uint64_t order) {
  sc_core::sc_spawn([&q, &done_ns, at_ns, order] {
    sc_core::wait(ns_to_time(at_ns));
    Completion c;
    q.push(ns_to_time(10), 64, &c, order);
    c.wait();
    done_ns[order] = to_ns(sc_core::sc_time_stamp());
  });
}

// A bounded queue admits blocked requesters one per freed slot, earliest
// attempt first, then by order key: not in the order the kernel runs them.
TEST(ServiceQueueModel, BlockedRequestersAreAdmittedByAttemptTimeThenOrderKey) {
  ServiceQueue q("q", 1);
  std::map<uint64_t, double> done_ns;
  auto requester = [&](double at_ns, uint64_t order) { spawn_requester(q, done_ns, at_ns, order); };
  requester(0, 5);  // served at once
  requester(0, 9);  // fills the one slot
  requester(1, 3);  // these block; spawned (and run) in the order 3, 1, 2
  requester(1, 1);
  requester(1, 2);
  requester(0.5, 7);  // blocked earlier than the three above
  sc_core::sc_start();
  EXPECT_DOUBLE_EQ(done_ns.at(5), 10);
  EXPECT_DOUBLE_EQ(done_ns.at(9), 20);
  EXPECT_DOUBLE_EQ(done_ns.at(7), 30);
  EXPECT_DOUBLE_EQ(done_ns.at(1), 40);
  EXPECT_DOUBLE_EQ(done_ns.at(2), 50);
  EXPECT_DOUBLE_EQ(done_ns.at(3), 60);
  EXPECT_EQ(q.stats().max_depth, 2u);  // one in service, one queued: never over capacity
}

// An unbounded queue serves by (arrival, order key, push): same-instant
// arrivals by key whatever order they were pushed in, a later arrival after
// them all even with a smaller key.
TEST(ServiceQueueModel, SameInstantArrivalsAreServedByKeyAndLaterOnesAfter) {
  ServiceQueue q("q");
  std::map<uint64_t, double> done_ns;
  auto requester = [&](double at_ns, uint64_t order) { spawn_requester(q, done_ns, at_ns, order); };
  requester(0, 30);  // pushed in the order 30, 10, 20 at t = 0
  requester(0, 10);
  requester(0, 20);
  requester(5, 1);  // arrives later, with the smallest key
  requester(5, 40);
  sc_core::sc_start();
  EXPECT_DOUBLE_EQ(done_ns.at(10), 10);
  EXPECT_DOUBLE_EQ(done_ns.at(20), 20);
  EXPECT_DOUBLE_EQ(done_ns.at(30), 30);
  EXPECT_DOUBLE_EQ(done_ns.at(1), 40);
  EXPECT_DOUBLE_EQ(done_ns.at(40), 50);
  EXPECT_EQ(q.stats().max_depth, 5u);
}

}  // namespace
}  // namespace kb
