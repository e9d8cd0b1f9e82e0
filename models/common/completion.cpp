#include "models/common/completion.h"

#include <memory>
#include <vector>

namespace kb {

namespace {

// Completions not in use. Requests nest (a link's wait inside a burst's trip
// through the next link), so a scope takes its own; the list grows to the
// most in use at once.
std::vector<std::unique_ptr<Completion>>& free_completions() {
  // Never destroyed: at exit the kernel's objects may already be gone.
  static auto* list = new std::vector<std::unique_ptr<Completion>>;
  return *list;
}

}  // namespace

PooledCompletion::PooledCompletion() {
  auto& list = free_completions();
  if (list.empty()) {
    c_ = new Completion;  // owned by the list once returned
  } else {
    c_ = list.back().release();
    list.pop_back();
  }
}

PooledCompletion::~PooledCompletion() {
  if (c_->finished())
    free_completions().emplace_back(c_);
  else
    delete c_;  // abandoned mid-wait (a killed process): not reused
}

}  // namespace kb
