// A countdown that wakes the thread waiting on it when its last part is done.
// Used by a requester that fans one request out to several service queues.
// A requester with no thread of its own (a target answering a non-blocking
// transport) sets a Resume instead: it runs when the last part is done, where
// the waiting thread would have been woken.
#pragma once

#include <sysc/kernel/sc_event.h>
#include <sysc/kernel/sc_wait.h>

namespace kb {

class Completion {
 public:
  class Resume {
   public:
    virtual void resume() = 0;

   protected:
    ~Resume() = default;
  };
  // Run `r` instead of waking a waiter (null: wake the waiter).
  void set_resume(Resume* r) { resume_ = r; }

  void expect(unsigned parts) { pending_ += parts; }
  // After the last part, touches nothing of this Completion once resume() is
  // called: it may reuse it.
  void done() {
    if (pending_ > 0 && --pending_ == 0) {
      if (resume_)
        resume_->resume();
      else
        event_.notify();
    }
  }
  bool finished() const { return pending_ == 0; }
  // Blocks the calling SC_THREAD until every expected part is done.
  void wait() {
    while (pending_ > 0) sc_core::wait(event_);
  }

 private:
  unsigned pending_ = 0;
  Resume* resume_ = nullptr;
  sc_core::sc_event event_;
};

// A Completion taken from a free list for the length of a scope. A request
// through a link, an HBM controller or a memory port waits on one, and a
// fresh one constructs and destroys an sc_event and grows its waiter list
// each time. It goes back to the list only when finished (no part still
// outstanding, nobody waiting); otherwise it is destroyed, as a local would be.
class PooledCompletion {
 public:
  PooledCompletion();
  ~PooledCompletion();
  PooledCompletion(const PooledCompletion&) = delete;
  PooledCompletion& operator=(const PooledCompletion&) = delete;
  Completion* get() { return c_; }
  Completion* operator->() { return c_; }

 private:
  Completion* c_;
};

}  // namespace kb
