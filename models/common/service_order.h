// The service order of a queue's requests: (arrival time, order key, push
// sequence). Requests arrive in time order, so a queue kept in that order
// takes each new one at its tail, passing only the same-instant arrivals with
// a worse key; its front is then the request to serve next. `R` has the
// members arrival, order and seq; `Q` is a sequence of them with
// bidirectional iterators and insert (a RingQueue, a std::deque).
#pragma once

#include <iterator>
#include <tuple>
#include <utility>

namespace kb {

template <class Q, class R>
void insert_in_service_order(Q& q, R r) {
  auto pos = q.end();
  while (pos != q.begin()) {
    auto prev = std::prev(pos);
    if (std::tie(prev->arrival, prev->order, prev->seq) < std::tie(r.arrival, r.order, r.seq))
      break;
    pos = prev;
  }
  q.insert(pos, std::move(r));
}

}  // namespace kb
