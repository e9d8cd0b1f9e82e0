// sc_main for the test binaries. SystemC errors throw (a test sees them as
// exceptions, sc_core::sc_report) and every SystemC warning fails the test
// that raised it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <systemc>

#include "platform/process/report_policy.h"

int sc_main(int argc, char* argv[]) {
  kb::set_time_resolution();
  kb::install_report_policy(
      [](const std::string& warning) { ADD_FAILURE() << "SystemC warning: " << warning; });
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

// Keeps the SystemC banner out of --gtest_list_tests output (test discovery).
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
