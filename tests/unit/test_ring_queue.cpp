// RingQueue, the FIFO of the models' queues: it must agree with a std::deque
// through any mix of the operations the queues use, across growth and the
// wrap of its circular buffer, and let go of what a popped entry owned.
#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <random>

#include "models/common/ring_queue.h"
#include "models/common/service_order.h"

namespace kb {
namespace {

TEST(RingQueue, AgreesWithADequeThroughPushesPopsInsertsAndErases) {
  RingQueue<int> q;
  std::deque<int> ref;
  std::mt19937 rng(11);
  int next = 0;
  for (int step = 0; step < 200000; ++step) {
    const unsigned op = rng() % 10;
    // Sizes drift up and down so the buffer grows, wraps and refills.
    const bool grow = (step / 5000) % 2 == 0;
    if (op < (grow ? 5u : 3u)) {
      q.push_back(next);
      ref.push_back(next++);
    } else if (op == 5 && !ref.empty()) {
      const size_t at = rng() % (ref.size() + 1);
      auto it = q.insert(q.begin() + static_cast<std::ptrdiff_t>(at), next);
      ref.insert(ref.begin() + static_cast<std::ptrdiff_t>(at), next++);
      ASSERT_EQ(static_cast<size_t>(it - q.begin()), at);
    } else if (op == 6 && !ref.empty()) {
      const size_t at = rng() % ref.size();
      auto it = q.erase(q.begin() + static_cast<std::ptrdiff_t>(at));
      ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(at));
      ASSERT_EQ(static_cast<size_t>(it - q.begin()), at);
    } else if (op == 7) {
      q.push_front(next);
      ref.push_front(next++);
    } else if (op == 8 && !ref.empty()) {
      q.pop_back();
      ref.pop_back();
    } else if (!ref.empty()) {
      ASSERT_EQ(q.front(), ref.front());
      q.pop_front();
      ref.pop_front();
    }
    ASSERT_EQ(q.size(), ref.size());
    ASSERT_EQ(q.empty(), ref.empty());
    if (!ref.empty()) {
      ASSERT_EQ(q.front(), ref.front());
      ASSERT_EQ(q.back(), ref.back());
    }
    if (step % 997 == 0) {
      size_t i = 0;
      for (int v : q) ASSERT_EQ(v, ref[i++]);
      ASSERT_EQ(i, ref.size());
    }
  }
  q.clear();
  EXPECT_TRUE(q.empty());
  q.push_back(1);
  EXPECT_EQ(q.front(), 1);
}

TEST(RingQueue, APoppedOrErasedEntryLetsGoOfWhatItOwned) {
  RingQueue<std::shared_ptr<int>> q;
  auto a = std::make_shared<int>(1), b = std::make_shared<int>(2), c = std::make_shared<int>(3);
  q.push_back(a);
  q.push_back(b);
  q.push_back(c);
  q.pop_front();
  EXPECT_EQ(a.use_count(), 1);
  q.erase(q.begin());
  EXPECT_EQ(b.use_count(), 1);
  q.pop_back();
  EXPECT_EQ(c.use_count(), 1);
}

TEST(RingQueue, AMovedFromQueueIsEmptyAndAnEmplaceMayCopyItsOwnEntry) {
  RingQueue<int> q;
  for (int i = 0; i < 8; ++i) q.push_back(i);  // full: the next push grows it
  q.emplace_back(q.front());
  EXPECT_EQ(q.size(), 9u);
  EXPECT_EQ(q.back(), 0);
  RingQueue<int> moved(std::move(q));
  EXPECT_TRUE(q.empty());  // NOLINT(bugprone-use-after-move): the state is defined
  EXPECT_EQ(moved.size(), 9u);
  q.push_back(5);
  EXPECT_EQ(q.front(), 5);
  RingQueue<int>::const_iterator it = moved.begin();
  EXPECT_EQ(*(2 + it), 2);
}

// The service order passes only same-instant arrivals with a worse key, in a
// RingQueue as in a deque.
TEST(RingQueue, KeepsTheServiceOrder) {
  struct R {
    int arrival = 0;
    int order = 0;
    int seq = 0;
  };
  RingQueue<R> q;
  std::deque<R> ref;
  std::mt19937 rng(3);
  for (int seq = 0; seq < 5000; ++seq) {
    if (rng() % 3 == 0 && !ref.empty()) {
      q.pop_front();
      ref.pop_front();
    }
    const R r{seq / 4, static_cast<int>(rng() % 5), seq};
    insert_in_service_order(q, r);
    insert_in_service_order(ref, r);
    ASSERT_EQ(q.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(q[i].seq, ref[i].seq);
  }
}

}  // namespace
}  // namespace kb
