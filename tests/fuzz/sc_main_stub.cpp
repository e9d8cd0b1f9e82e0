// libsystemc defines main(), which calls sc_main(); the fuzz targets link the
// library (through kernbench_core) but run libFuzzer's main instead, so this
// definition only satisfies the linker. It is never called. (C linkage, as
// SystemC declares it in sysc/kernel/sc_externs.h.)
extern "C" int sc_main(int /*argc*/, char* /*argv*/[]) {
  return 0;
}
