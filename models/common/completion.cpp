#include "models/common/completion.h"

#include "models/common/free_list.h"

namespace kb {

PooledCompletion::PooledCompletion() : c_(FreeList<Completion>::take()) {}

PooledCompletion::~PooledCompletion() {
  if (c_->finished())
    FreeList<Completion>::give(c_);
  else
    delete c_;  // abandoned mid-wait (a killed process): not reused
}

}  // namespace kb
