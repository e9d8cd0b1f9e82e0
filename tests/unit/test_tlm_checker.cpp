// The TLM-2.0 base-protocol checker (models/common/tlm_checker.h) against
// deliberately broken socket users: each rule violation must stop the
// simulation with a /kernbench/tlm_protocol error naming the module, the rule
// and the address. One elaboration per test (each test is its own process).
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <functional>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/common/address_map.h"
#include "models/common/tlm_checker.h"
#include "models/link/link.h"
#include "models/memory/memory_target.h"
#include "platform/process/sanitizer_support.h"

namespace kb {
namespace {

// An initiator whose behaviour is a script: each script runs in its own
// SC_THREAD, started at time zero.
class ScriptedInitiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<ScriptedInitiator> socket;
  explicit ScriptedInitiator(const sc_core::sc_module_name& name)
      : sc_module(name), socket("socket") {}
  void spawn(const std::function<void(ScriptedInitiator&)>& script) {
    sc_core::sc_spawn([this, script] { script(*this); });
  }
  void spawn_method(const std::function<void(ScriptedInitiator&)>& script) {
    sc_core::sc_spawn_options opts;
    opts.spawn_method();
    sc_core::sc_spawn([this, script] { script(*this); }, sc_core::sc_gen_unique_name("method"),
                      &opts);
  }
};

// A target whose b_transport / transport_dbg are given by the test.
class ScriptedTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ScriptedTarget> socket;
  std::function<void(tlm::tlm_generic_payload&, sc_core::sc_time&)> on_b_transport =
      [](tlm::tlm_generic_payload& t, sc_core::sc_time&) {
        t.set_response_status(tlm::TLM_OK_RESPONSE);
      };
  std::function<unsigned(tlm::tlm_generic_payload&)> on_dbg = [](tlm::tlm_generic_payload& t) {
    return t.get_data_length();
  };
  explicit ScriptedTarget(const sc_core::sc_module_name& name) : sc_module(name), socket("socket") {
    socket.register_b_transport(this, &ScriptedTarget::b_transport);
    socket.register_transport_dbg(this, &ScriptedTarget::transport_dbg);
  }

 private:
  // Not const: register_b_transport / register_transport_dbg take non-const members.
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& d) {  // NOLINT
    on_b_transport(t, d);
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& t) { return on_dbg(t); }  // NOLINT
};

LinkConfig link_cfg() {
  LinkConfig c;
  c.bandwidth_gbps = 128;
  c.latency_ns = 5;
  c.packet_bytes = 256;
  c.header_bytes = 0;
  return c;
}

const uint64_t kAddr = encode_address({Space::kTcm, 0, 0, 0, 0x40});

// A well-formed 64-byte read of kAddr into `buf`.
void prepare(tlm::tlm_generic_payload& t, std::vector<unsigned char>& buf,
             tlm::tlm_command cmd = tlm::TLM_READ_COMMAND) {
  buf.resize(64);
  t.set_command(cmd);
  t.set_address(kAddr);
  t.set_data_ptr(buf.data());
  t.set_data_length(64);
  t.set_streaming_width(64);
  t.set_byte_enable_ptr(nullptr);
  t.set_byte_enable_length(0);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

// Runs the simulation and returns the protocol error it stopped with ("" if none).
std::string protocol_error() {
  try {
    sc_core::sc_start();
  } catch (const sc_core::sc_report& r) {
    recover_stack_after_sc_exception();
    EXPECT_STREQ(r.get_msg_type(), kTlmProtocolMsgType) << r.what();
    return r.get_msg();
  }
  return "";
}

void expect_mentions(const std::string& msg, const std::vector<std::string>& parts) {
  for (const std::string& p : parts)
    EXPECT_NE(msg.find(p), std::string::npos) << p << " in: " << msg;
}

class TlmChecker : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!KB_TLM_CHECKS) GTEST_SKIP() << "built with KB_TLM_CHECKS=OFF";
  }
};

// initiator -> link -> memory: the fabric's usual shape.
struct Fabric {
  ScriptedInitiator init{"init"};
  Link link{"link", link_cfg()};
  MemoryTarget mem{"mem", 1 << 20, 64, 1};
  Fabric() {
    init.socket.bind(link.in);
    link.out.bind(mem.in);
  }
};

TEST_F(TlmChecker, WellFormedTrafficPasses) {
  Fabric b;
  bool done = false;
  b.init.spawn([&](ScriptedInitiator& i) {
    tlm::tlm_generic_payload t;
    std::vector<unsigned char> buf;
    for (const auto cmd : {tlm::TLM_WRITE_COMMAND, tlm::TLM_READ_COMMAND}) {
      prepare(t, buf, cmd);  // reused, but reset and never while in flight
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      i.socket->b_transport(t, delay);
      EXPECT_TRUE(t.is_response_ok());
    }
    prepare(t, buf);
    EXPECT_EQ(i.socket->transport_dbg(t), 64u);
    done = true;
  });
  EXPECT_EQ(protocol_error(), "");
  EXPECT_TRUE(done);
  EXPECT_EQ(tlm_payloads_in_flight(), 0u);
}

TEST_F(TlmChecker, NullDataPointerIsCaught) {
  Fabric b;
  b.init.spawn([](ScriptedInitiator& i) {
    tlm::tlm_generic_payload t;
    std::vector<unsigned char> buf;
    prepare(t, buf);
    t.set_data_ptr(nullptr);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    i.socket->b_transport(t, delay);
  });
  expect_mentions(protocol_error(),
                  {"link: ", "b_transport", "14.11", "data pointer is null", "0x2000000000000040"});
}

TEST_F(TlmChecker, ResponseStatusNotResetIsCaught) {
  Fabric b;
  b.init.spawn([](ScriptedInitiator& i) {
    tlm::tlm_generic_payload t;
    std::vector<unsigned char> buf;
    prepare(t, buf);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    i.socket->b_transport(t, delay);  // fine; leaves TLM_OK_RESPONSE behind
    t.set_command(tlm::TLM_WRITE_COMMAND);
    i.socket->b_transport(t, delay);  // the status was not reset
  });
  expect_mentions(protocol_error(),
                  {"link: ", "14.17", "TLM_OK_RESPONSE on entry", "WRITE 0x2000000000000040"});
}

TEST_F(TlmChecker, PayloadReusedWhileInFlightIsCaught) {
  Fabric b;
  tlm::tlm_generic_payload shared;
  std::vector<unsigned char> buf;
  prepare(shared, buf, tlm::TLM_WRITE_COMMAND);
  // Two processes send the same payload object; the second starts while the
  // first is still being serialised on the link.
  for (int k = 0; k < 2; ++k) {
    b.init.spawn([&shared, k](ScriptedInitiator& i) {
      sc_core::wait(sc_core::sc_time(k, sc_core::SC_NS));
      shared.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      i.socket->b_transport(shared, delay);
    });
  }
  expect_mentions(protocol_error(), {"link: ", "14.5", "still in flight through it"});
}

TEST_F(TlmChecker, TargetThatLeavesTheResponseIncompleteIsCaught) {
  ScriptedInitiator init("init");
  Link link("link", link_cfg());
  ScriptedTarget target("target");
  target.on_b_transport = [](tlm::tlm_generic_payload&, sc_core::sc_time&) {};  // forgets
  init.socket.bind(link.in);
  link.out.bind(target.socket);
  init.spawn([](ScriptedInitiator& i) {
    tlm::tlm_generic_payload t;
    std::vector<unsigned char> buf;
    prepare(t, buf);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    i.socket->b_transport(t, delay);
  });
  expect_mentions(protocol_error(),
                  {"link: ", "returned with TLM_INCOMPLETE_RESPONSE", "did not set a response"});
}

TEST_F(TlmChecker, TargetThatChangesTheDataLengthIsCaught) {
  ScriptedInitiator init("init");
  Link link("link", link_cfg());
  ScriptedTarget target("target");
  target.on_b_transport = [](tlm::tlm_generic_payload& t, sc_core::sc_time&) {
    t.set_data_length(t.get_data_length() / 2);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  };
  init.socket.bind(link.in);
  link.out.bind(target.socket);
  init.spawn([](ScriptedInitiator& i) {
    tlm::tlm_generic_payload t;
    std::vector<unsigned char> buf;
    prepare(t, buf);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    i.socket->b_transport(t, delay);
  });
  expect_mentions(protocol_error(), {"link: ", "14.7", "data length modified"});
}

TEST_F(TlmChecker, DebugTransportReturningTooManyBytesIsCaught) {
  ScriptedInitiator init("init");
  Link link("link", link_cfg());
  ScriptedTarget target("target");
  target.on_dbg = [](tlm::tlm_generic_payload& t) { return t.get_data_length() + 1; };
  init.socket.bind(link.in);
  link.out.bind(target.socket);
  init.spawn([](ScriptedInitiator& i) {
    tlm::tlm_generic_payload t;
    std::vector<unsigned char> buf;
    prepare(t, buf);
    (void)i.socket->transport_dbg(t);
  });
  expect_mentions(protocol_error(), {"link: ", "transport_dbg", "returned 65 bytes"});
}

TEST_F(TlmChecker, StreamingWidthBelowLengthIsCaught) {
  Fabric b;
  b.init.spawn([](ScriptedInitiator& i) {
    tlm::tlm_generic_payload t;
    std::vector<unsigned char> buf;
    prepare(t, buf);
    t.set_streaming_width(4);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    i.socket->b_transport(t, delay);
  });
  expect_mentions(protocol_error(), {"14.15", "streaming width 4 < data length 64"});
}

TEST_F(TlmChecker, WrappedNegativeDelayIsCaught) {
  Fabric b;
  b.init.spawn([](ScriptedInitiator& i) {
    tlm::tlm_generic_payload t;
    std::vector<unsigned char> buf;
    prepare(t, buf);
    // 0 - 1 ps, as an initiator that subtracts the wrong way round computes it.
    sc_core::sc_time delay = sc_core::sc_time::from_value(~uint64_t{0});
    i.socket->b_transport(t, delay);
  });
  expect_mentions(protocol_error(), {"negative timing annotation"});
}

TEST_F(TlmChecker, BlockingTransportFromAMethodIsCaught) {
  Fabric b;
  b.init.spawn_method([](ScriptedInitiator& i) {
    static tlm::tlm_generic_payload t;
    static std::vector<unsigned char> buf;
    prepare(t, buf);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    i.socket->b_transport(t, delay);
  });
  expect_mentions(protocol_error(), {"11.1.1.4", "called from an SC_METHOD"});
}

}  // namespace
}  // namespace kb
