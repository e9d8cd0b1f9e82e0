// The calendar of timed wake-ups and the service queue's push_after: both must
// wake a process in exactly the instant and delta cycle the kernel's own timed
// notification would, so that moving a wait onto them changes no result.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "models/common/calendar.h"
#include "models/common/completion.h"
#include "models/common/due_timers.h"
#include "models/common/service_queue.h"
#include "models/common/sim_time.h"

namespace kb {
namespace {

using When = std::pair<double, sc_dt::uint64>;  // (ns, delta count)

When now() {
  return {to_ns(sc_core::sc_time_stamp()), sc_core::sc_delta_count()};
}

TEST(Calendar, AThreadWakesInTheInstantAndDeltaOfTheKernelsTimedWait) {
  When kernel{-1, 0}, calendar{-1, 0};
  sc_core::sc_spawn([&] {
    sc_core::wait(ns_to_time(5));
    kernel = now();
  });
  sc_core::sc_spawn([&] {
    Calendar::get().wait(ns_to_time(5));
    calendar = now();
  });
  sc_core::sc_start();
  EXPECT_EQ(kernel.first, 5.0);
  EXPECT_EQ(calendar, kernel);
}

TEST(Calendar, EntriesFireInTimeOrderThenInTheOrderTheyWereMade) {
  sc_core::sc_event a, b, c;
  std::vector<std::string> fired;
  std::vector<double> at;
  auto watch = [&](sc_core::sc_event& ev, const char* name) {
    sc_core::sc_spawn([&ev, name, &fired, &at] {
      sc_core::wait(ev);
      fired.emplace_back(name);
      at.push_back(to_ns(sc_core::sc_time_stamp()));
    });
  };
  watch(a, "a");
  watch(b, "b");
  watch(c, "c");
  sc_core::sc_spawn([&] {
    Calendar::get().notify_in(a, ns_to_time(10));
    Calendar::get().notify_in(b, ns_to_time(3));  // earlier than the one armed
    Calendar::get().notify_in(c, ns_to_time(10));
  });
  sc_core::sc_start();
  ASSERT_EQ(fired.size(), 3u);
  EXPECT_EQ(fired[0], "b");
  EXPECT_EQ(at[0], 3.0);
  EXPECT_EQ(fired[1], "a");  // made before c, due at the same instant
  EXPECT_EQ(fired[2], "c");
  EXPECT_EQ(at[1], 10.0);
  EXPECT_EQ(at[2], 10.0);
}

// A timer runs in the instant and delta cycle where a process woken by a
// notification made at the same time runs. One instant's entries are taken in
// the order they were made: the timer runs then and there, the notified
// processes after the calendar's own.
TEST(Calendar, ATimerRunsWhereAnEventsWaiterWouldInTheOrderMade) {
  struct Recorder final : Calendar::Timer {
    std::vector<std::string>* log = nullptr;
    When at{-1, 0};
    void on_time() override {
      at = now();
      log->emplace_back("timer");
    }
  } timer;
  std::vector<std::string> log;
  timer.log = &log;
  sc_core::sc_event first, last;
  When woken{-1, 0};
  sc_core::sc_spawn([&] {
    sc_core::wait(first);
    woken = now();
    log.emplace_back("first");
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(last);
    log.emplace_back("last");
  });
  sc_core::sc_spawn([&] {
    Calendar::get().notify_in(first, ns_to_time(4));
    Calendar::get().call_in(timer, ns_to_time(4));
    Calendar::get().notify_in(last, ns_to_time(4));
  });
  sc_core::sc_start();
  EXPECT_EQ(timer.at.first, 4.0);
  EXPECT_EQ(timer.at, woken);
  // The timer runs inside the calendar, before the processes its delta wakes.
  EXPECT_EQ(log, (std::vector<std::string>{"timer", "first", "last"}));
}

// A next-delta call runs in the delta cycle where a method woken by a
// notify(SC_ZERO_TIME) made at the same point runs, also when it is made in a
// delta in which the calendar runs later (for an earlier call): it is not
// taken there, a delta early.
TEST(Calendar, ANextDeltaCallRunsWhereAZeroTimeNotificationsMethodWould) {
  struct Recorder final : Calendar::Timer {
    std::vector<std::string>* log = nullptr;
    const char* name = "";
    When at{-1, 0};
    void on_time() override {
      at = now();
      log->emplace_back(name);
    }
  } earlier, timer;
  std::vector<std::string> log;
  earlier.log = timer.log = &log;
  earlier.name = "earlier";
  timer.name = "timer";
  sc_core::sc_event go, kick;
  When woken{-1, 0};
  auto method = [](sc_core::sc_event& ev, std::function<void()> body, const char* name) {
    sc_core::sc_spawn_options opts;
    opts.spawn_method();
    opts.set_sensitivity(&ev);
    opts.dont_initialize();
    sc_core::sc_spawn(std::move(body), name, &opts);
  };
  // Woken with the calendar, and run ahead of it (the kernel runs the
  // methods of a delta last notified first).
  method(
      go,
      [&] {
        log.emplace_back("caller");
        kick.notify(sc_core::SC_ZERO_TIME);
        Calendar::get().call_next_delta(timer);
      },
      "caller");
  method(
      kick, [&] { woken = now(); }, "kicked");
  sc_core::sc_spawn([&] {
    sc_core::wait(ns_to_time(3));
    Calendar::get().call_next_delta(earlier);
    go.notify(sc_core::SC_ZERO_TIME);
  });
  sc_core::sc_start();
  ASSERT_EQ(log, (std::vector<std::string>{"caller", "earlier", "timer"}));
  EXPECT_EQ(woken.first, 3.0);
  EXPECT_EQ(timer.at, woken);
  EXPECT_EQ(earlier.at.second + 1, timer.at.second);
}

// DeltaKick: the kicks of one delta run the member once, in the next delta;
// a kick made while it runs runs it again a delta later; a kick made between
// two sc_start() calls runs it in the first delta of the next.
TEST(Calendar, DeltaKickRunsOncePerDeltaOfKicksLikeAMethod) {
  struct Owner {
    std::vector<When> runs;
    bool again = true;
    void run() {
      runs.push_back(now());
      if (again) {
        again = false;
        kick.kick();
      }
    }
    DeltaKick<Owner, &Owner::run> kick{this};
  } owner;
  sc_core::sc_spawn([&] {
    owner.kick.kick();
    owner.kick.kick();
  });
  sc_core::sc_start();
  ASSERT_EQ(owner.runs.size(), 2u);
  EXPECT_EQ(owner.runs[1].second, owner.runs[0].second + 1);
  owner.kick.kick();  // between runs
  owner.kick.kick();
  sc_core::sc_start();
  EXPECT_EQ(owner.runs.size(), 3u);
}

// A requester that waits out its delay and pushes, and one that hands the
// request over with push_after, see their completion in the same instant and
// delta cycle, alone and behind a request already in service.
TEST(ServiceQueuePushAfter, CompletesWhereWaitingAndThenPushingDoes) {
  ServiceQueue waited("waited"), handed("handed");
  When w{-1, 0}, h{-1, 0};
  for (ServiceQueue* q : {&waited, &handed})
    sc_core::sc_spawn([q] {  // keeps the queue busy until 12 ns
      PooledCompletion c;
      q->push(ns_to_time(12), 64, c.get());
      c->wait();
    });
  sc_core::sc_spawn([&] {
    PooledCompletion c;
    sc_core::wait(ns_to_time(7));
    waited.push(ns_to_time(10), 64, c.get());
    c->wait();
    w = now();
  });
  sc_core::sc_spawn([&] {
    PooledCompletion c;
    handed.push_after(ns_to_time(7), ns_to_time(10), 64, c.get());
    c->wait();
    h = now();
  });
  sc_core::sc_start();
  EXPECT_EQ(w.first, 22.0);
  EXPECT_EQ(h, w);
}

// Requests handed over for the same instant are served by their order key,
// not in the order they were handed over.
TEST(ServiceQueuePushAfter, SameInstantArrivalsAreServedByKey) {
  ServiceQueue q("q");
  std::vector<int> served;
  Completion first, second;
  sc_core::sc_spawn([&] {
    q.push_after(ns_to_time(4), ns_to_time(2), 64, &second, /*order=*/9);
    q.push_after(ns_to_time(4), ns_to_time(2), 64, &first, /*order=*/1);
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(ns_to_time(1));
    first.wait();
    served.push_back(1);
    EXPECT_EQ(to_ns(sc_core::sc_time_stamp()), 6.0);
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(ns_to_time(1));
    second.wait();
    served.push_back(9);
    EXPECT_EQ(to_ns(sc_core::sc_time_stamp()), 8.0);
  });
  sc_core::sc_start();
  EXPECT_EQ(served, (std::vector<int>{1, 9}));
}

// A request waiting since an earlier instant follows the one in service at
// once, ahead of one arriving at that instant with a better order key.
TEST(ServiceQueuePushAfter, AnEarlierArrivalGoesBeforeABetterKeyArrivingNow) {
  ServiceQueue q("q");
  Completion busy, early, now_arrived;
  double early_ns = -1, now_ns = -1;
  sc_core::sc_spawn([&] {
    q.push(ns_to_time(10), 64, &busy, /*order=*/5);
    q.push_after(ns_to_time(5), ns_to_time(2), 64, &early, /*order=*/9);
    q.push_after(ns_to_time(10), ns_to_time(2), 64, &now_arrived, /*order=*/1);
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(ns_to_time(1));
    early.wait();
    early_ns = to_ns(sc_core::sc_time_stamp());
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(ns_to_time(1));
    now_arrived.wait();
    now_ns = to_ns(sc_core::sc_time_stamp());
  });
  sc_core::sc_start();
  EXPECT_EQ(early_ns, 12.0);
  EXPECT_EQ(now_ns, 14.0);
}

// A timer due now runs later in the same delta, where a thread woken by an
// immediate notification runs; one due later runs at its instant, in the
// delta of the kernel's timed wait. A timer due now that gives another one
// due now has it run in that delta too. The method and its event, made at
// the first timer due now, are the owner's children.
TEST(DueTimers, ATimerDueNowRunsInThisDeltaAndALaterOneAtItsInstant) {
  struct Owner : sc_core::sc_module {
    explicit Owner(const sc_core::sc_module_name& n) : sc_core::sc_module(n) {}
  } owner("owner");
  DueTimers due(owner, "due", "due_now");
  struct Recorder final : Calendar::Timer {
    When at{-1, 0};
    Calendar::Timer* then = nullptr;
    DueTimers* due = nullptr;
    void on_time() override {
      at = now();
      if (then) due->call_in(*then, sc_core::SC_ZERO_TIME);
    }
  } zero, chained, later;
  zero.then = &chained;
  zero.due = &due;
  When woken{-1, 0}, kernel{-1, 0};
  sc_core::sc_event ev;
  sc_core::sc_spawn([&] {
    sc_core::wait(ev);
    woken = now();
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(ns_to_time(4));
    due.call_in(zero, sc_core::SC_ZERO_TIME);
    due.call_in(later, ns_to_time(3));
    ev.notify();
    sc_core::wait(ns_to_time(3));
    kernel = now();
  });
  sc_core::sc_start();
  EXPECT_EQ(woken.first, 4.0);
  EXPECT_EQ(zero.at, woken);
  EXPECT_EQ(chained.at, woken);
  EXPECT_EQ(later.at, kernel);
  EXPECT_EQ(kernel.first, 7.0);
  EXPECT_NE(sc_core::sc_find_object("owner.due"), nullptr);
  EXPECT_NE(sc_core::sc_find_event("owner.due_now"), nullptr);  // made with it, named under owner
}

}  // namespace
}  // namespace kb
