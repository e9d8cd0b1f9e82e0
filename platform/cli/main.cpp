// kernbench: a thin shell over the library (platform/cli/kernbench_app.cpp).
#include <cstdlib>
#include <systemc>

#include "platform/cli/kernbench_app.h"

int sc_main(int argc, char* argv[]) {
  return kb::kernbench_main(argc, argv);
}

// Our own main so the SystemC banner stays off stdout (results and tables
// are the only thing kernbench prints there); then the usual SystemC entry.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
