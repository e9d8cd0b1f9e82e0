// main() for every program that links the platform (the kernbench binary, a
// user's own sc_main): keeps the SystemC banner off stdout, where results and
// tables are the only output, then enters SystemC as usual (sc_main). It is
// the only object of the kb_main archive, so a program that defines its own
// main() keeps it: the linker takes this one only when main is missing.
#include <cstdlib>
#include <systemc>

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
