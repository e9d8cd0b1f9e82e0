// A TLM initiator for model tests: issues transactions at chosen simulated
// times, each from its own process, and records when each one completed.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/common/sim_time.h"

namespace kb {
namespace test {

class TestInitiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TestInitiator> socket;

  struct Request {
    double at_ns;
    tlm::tlm_command cmd;
    uint64_t addr;
    unsigned len;
    double done_ns = -1;
    tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  };

  explicit TestInitiator(const sc_core::sc_module_name& name) : sc_module(name), socket("socket") {}

  // Call during elaboration (before sc_start); returns the request's index.
  size_t issue(double at_ns, tlm::tlm_command cmd, uint64_t addr, unsigned len) {
    requests_.push_back({at_ns, cmd, addr, len});
    const size_t i = requests_.size() - 1;
    sc_core::sc_spawn([this, i] { run(i); });
    return i;
  }
  const Request& request(size_t i) const { return requests_.at(i); }

 private:
  void run(size_t i) {
    sc_core::wait(ns_to_time(requests_[i].at_ns));
    Request& r = requests_[i];
    std::vector<unsigned char> buf(r.len);
    tlm::tlm_generic_payload t;
    t.set_command(r.cmd);
    t.set_address(r.addr);
    t.set_data_ptr(buf.data());
    t.set_data_length(r.len);
    t.set_streaming_width(r.len);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(t, delay);
    sc_core::wait(delay);  // the fabric annotates pure latencies (annotated_delay.h)
    requests_[i].status = t.get_response_status();
    requests_[i].done_ns = to_ns(sc_core::sc_time_stamp());
  }
  std::vector<Request> requests_;
};

}  // namespace test
}  // namespace kb
