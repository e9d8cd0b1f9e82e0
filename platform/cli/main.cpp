// kernbench: a thin shell over the library (platform/cli/kernbench_app.cpp);
// main() is quiet_main.cpp's.
#include <systemc>  // declares sc_main extern "C"

#include "platform/cli/kernbench_app.h"

int sc_main(int argc, char* argv[]) {
  return kb::kernbench_main(argc, argv);
}
